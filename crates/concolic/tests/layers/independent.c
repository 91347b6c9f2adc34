/* Many inputs with independent branches, and one infeasible goal so the
   search never runs out of goals: the path conditions share few symbols,
   which is what slicing and the caches are for. */
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int a[6];
  int s = 0;
  for (int i = 0; i < 6; i++)
    a[i] = __VERIFIER_nondet_int();
  for (int i = 0; i < 6; i++) {
    if (a[i] > 10)
      s += 1;
    if ((a[i] & 7) == 3)
      s += 2;
  }
  if (a[0] > 100 && a[0] < 50)
    s = -1;
  if (s == 17)
    return 1;
  return 0;
}
