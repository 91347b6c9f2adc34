// The error is reached after exactly 5 iterations when n >= 5: no claim.
extern unsigned __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  unsigned n = __VERIFIER_nondet_uint();
  unsigned i = 0;
  while (i < n) {
    i++;
    if (i == 5) reach_error();
  }
  return 0;
}
