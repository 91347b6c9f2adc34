/* Two kinds of error, one of them reachable on two paths: the SARIF log
   has one result per distinct error and one rule per kind. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a > 1000)
    return 100 / b; /* division by zero when b == 0 */
  if (a == 7 || a == -7)
    reach_error();
  return 0;
}
