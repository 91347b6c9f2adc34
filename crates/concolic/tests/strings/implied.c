// A loop over a string `strlen` has measured: every outcome of the loop's
// condition is already in the path condition, so the loop offers no
// alternative (each would be a query sure to be unsatisfiable).
extern char __VERIFIER_nondet_char(void);
unsigned long strlen(const char *);

int main(void) {
  char s[5];
  for (int k = 0; k < 4; k++)
    s[k] = __VERIFIER_nondet_char();
  s[4] = 0;
  unsigned long n = strlen(s);
  int count = 0;
  for (char *p = s; *p; p++)
    count++;
  return count == (int)n;
}
