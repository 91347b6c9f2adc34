/* Nested loops over 8-bit counters: the inner ones run across the
   wrap-around (from `a` to `a + 100` modulo 256) and up to the outer
   counter; the middle one of a triple nest has an inner loop up to its
   own counter, whose length is not affine in the outer count. */
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void reach_error(void);

int main(void) {
  unsigned char lim = __VERIFIER_nondet_uchar();
  unsigned count = 0;
  unsigned char a;
  for (a = 0; a != lim; a++) {
    unsigned char b;
    for (b = a; b != (unsigned char)(a + 100); b++) {
      count++;
    }
    unsigned char c;
    for (c = 0; c < a; c++) {
    }
    if (c != a)
      reach_error();
  }
  int flag = 0;
  for (int x = 0; x < lim / 8; x++) {
    for (int y = 0; y < 20; y++) {
      for (int z = 0; z < y; z++) {
        if (z == x)
          flag = 1;
      }
    }
  }
  if (count == 100u * 200 && flag)
    reach_error();
  return (int)(count & 0x7f) + flag;
}
