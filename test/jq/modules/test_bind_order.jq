import "test_bind_order0" as t;
import "test_bind_order1" as t;
import "test_bind_order2" as t;
# each later import under the same alias shadows the earlier ones name by name
def check: [t::sym0, t::sym1, t::sym2] == [0, 1, 2];
