def e: 1;
def e: 2;
