// annotations: every configuration finds the error; may and may+must keep at most 2 tests
// A withdrawal verified under the assumption that `stock - qty` does not
// wrap (an unsigned subtraction an analyzer took for exact); many paths of
// logging and bonus code are correct and verified.
extern unsigned __VERIFIER_nondet_uint(void);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

unsigned stock;
int log_level, bonus;

void log_request(unsigned qty) {
  for (int i = 0; i < 6; i++) {
    if ((qty >> i) & 1) log_level += i; else log_level--;
  }
}

void grant_bonus(void) {
  int b = __VERIFIER_nondet_int();
  if (b > 100) bonus += 3;
  else if (b > 10) bonus += 2;
  else bonus++;
}

void withdraw(unsigned qty) {
  unsigned before = stock;
  if (qty == 0 || qty > 1000) {
    log_request(qty);
  } else {
    __VERIFIER_assumed(stock >= qty, "no_wrap");
    stock = stock - qty;
    if (stock < 50) grant_bonus();
  }
  __VERIFIER_assert_verified(stock <= before, "no_wrap");
  if (!(stock <= before)) reach_error();
}

int main(void) {
  stock = __VERIFIER_nondet_uint();
  withdraw(__VERIFIER_nondet_uint());
  return 0;
}
