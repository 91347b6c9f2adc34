/* Four nested loops of nearly 2^32 iterations each: the error needs every
   counter equal to the input `t`. No run gets there iteration by
   iteration; jumps over whole outer iterations do. */
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned t = __VERIFIER_nondet_uint();
  unsigned w, x, y, z;
  for (w = 0; w < 0xfffffff0u; w++)
    for (x = 0; x < 0xfffffff0u; x++)
      for (y = 0; y < 0xfffffff0u; y++)
        for (z = 0; z < 0xfffffff0u; z++)
          if (w == x && x == y && y == z && z == t)
            reach_error();
  return (int)(w - x + y - z) & 0x7f;
}
