extern int __VERIFIER_nondet_int(void);
extern char *lookup(int key);   /* neither a body nor a model */
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k > 10) {
    char *p = lookup(k);
    if (p && p[0] == 'x') return 2;   /* never a false memory error */
    return 1;
  }
  return 0;
}
