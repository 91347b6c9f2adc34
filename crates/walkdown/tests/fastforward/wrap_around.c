/* Unsigned counters stepping until they wrap around, at three widths. */
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned char c = (unsigned char)__VERIFIER_nondet_uint();
  int turns = 0;
  while (c >= 10) {
    c += 3;
    turns++;
  }
  unsigned short h = 7;
  while (h != 1) {
    h += 6;
  }
  unsigned x = 0xfff00000u + (__VERIFIER_nondet_uint() & 0xffu);
  while (x >= 10) {
    x += 2;
  }
  if (x % 2)
    reach_error();
  unsigned y = 1;
  while (y != 0x10001u) {
    y -= 0x1000u;
  }
  return turns + c + (int)h + (int)x + (int)(y >> 16);
}
