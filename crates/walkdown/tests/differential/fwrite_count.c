// fwrite's result, as programs check it (`if (fwrite (buf, n, 1, stdout)
// != 1) write_error ()`, coreutils' seq): natively a write to stdout
// succeeds and returns the count of items (0 for items of size 0); the
// model must return it too, or every run takes the error path. The exit
// status spells the results.
#include <stdio.h>
extern int __VERIFIER_nondet_int(void);

int main(void) {
  char buf[4] = "abc";
  int n = __VERIFIER_nondet_int() & 3;
  size_t items = fwrite(buf, 1, (size_t)n, stdout);
  size_t one = fwrite(buf, (size_t)n, 1, stdout);
  if (items != (size_t)n)
    return 1;
  if (one != (n > 0 ? 1u : 0u))
    return 2;
  return 10 + n;
}
