/* The number of rounds is an input and each count is between 0 and 6, so
 * the total (which stops growing past 7) can never be negative (the branch
 * marked NEG), and the error call needs every input of one round to be 9
 * (marked HIT). */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int count_nines(void) {
  int c = 0;
  for (int j = 0; j < 6; j++) {
    if (__VERIFIER_nondet_int() == 9) c++;
  }
  return c;
}

int main(void) {
  int rounds = __VERIFIER_nondet_int();
  int total = 0;
  while (rounds > 0) {
    int t = count_nines();
    if (t == 6) reach_error(); /* HIT */
    total += t;
    if (total > 7) break;
    rounds--;
  }
  if (total < 0) { /* NEG */
    return 1;
  }
  return 0;
}
