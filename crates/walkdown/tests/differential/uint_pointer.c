// A pointer to a global and one to the stack, each passed through an
// unsigned int and back. Under ILP32 nothing is lost; under LP64 the
// upper half of the address is (data, heap and stack lie above 4 GiB
// natively), and the access through the widened pointer faults.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int table[4] = {1, 2, 3, 4};

static int read_back(unsigned int cookie, int i) {
  int *p = (int *)(unsigned long)cookie;
  return p[i & 3];
}

int main(void) {
  int local = __VERIFIER_nondet_int();
  int which = __VERIFIER_nondet_int();
  int v;
  if (which > 0)
    v = read_back((unsigned int)(unsigned long)table, local);
  else
    v = read_back((unsigned int)(unsigned long)&local, 0);
  if (v == 3)
    reach_error();
  return 0;
}
