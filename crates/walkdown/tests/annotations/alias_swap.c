// annotations: every configuration finds the error
// Exchange of two cells through pointers: the analyzer assumed the pointers
// do not alias and proved the sum preserved; when both name one cell the
// swap-by-arithmetic zeroes it.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int cells[4];

void swap(int *p, int *q) {
  *p = *p + *q;
  *q = *p - *q;
  *p = *p - *q;
}

int main(void) {
  for (int k = 0; k < 4; k++) cells[k] = __VERIFIER_nondet_int() & 255;
  int i = __VERIFIER_nondet_int() & 3;
  int j = (__VERIFIER_nondet_int() & 3) ^ 1;
  int before = cells[i] + cells[j];
  __VERIFIER_assumed(i != j, "no_alias");
  swap(&cells[i], &cells[j]);
  __VERIFIER_assert_verified(cells[i] + cells[j] == before, "no_alias");
  if (!(cells[i] + cells[j] == before)) reach_error();
  return 0;
}
