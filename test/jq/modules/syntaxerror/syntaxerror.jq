def e: 4;
;
