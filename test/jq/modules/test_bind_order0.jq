def sym0: 0;
def sym1: 0;
