# modulemeta on "c" must list exactly these imports, with this metadata, and defs a/0 and c/0.
module {whatever: null};
import "a" as foo;
import "d" as d {search: "./"};
import "d" as d2 {search: "./"};
import "e" as e {search: "./../lib/jq"};
import "f" as f {search: "./../lib/jq"};
import "data" as $d;
def a: 0;
def c:
  if $d::d != [{this: "is a test", that: "is too"}] then error("data module not bound")
  elif [d::meh, d2::meh] != ["meh", "meh"] then error("second import of d differs")
  elif f::f != "f is here" then error("f not found through the relative search path")
  else foo::a + "c" + d::meh + e::bah end;
