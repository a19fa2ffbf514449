# Our own stand-ins for jq 1.7.1's tests/modules, shaped by what jq.test expects of them.
def a: "a";
