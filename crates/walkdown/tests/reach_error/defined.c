/* reach_error defined, as SV-COMP tasks define it (its body calls
 * __assert_fail), and called when x is 42; a second call sits in a branch
 * no input takes (x is both above 100 and below 50). */
extern int __VERIFIER_nondet_int(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "defined.c", 6, "reach_error"); }

int main(void) {
  int x = __VERIFIER_nondet_int();
  for (int i = 0; i < 3; i++) {
    if (x == 42 + i) reach_error();
  }
  if (x > 100) {
    if (x < 50) reach_error(); /* DEAD */
  }
  return 0;
}
