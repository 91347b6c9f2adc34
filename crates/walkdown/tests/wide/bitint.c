/* _BitInt(72), _BitInt(100) and _BitInt(127) arithmetic (clang's i72,
   i100, i127; gcc 12 has no _BitInt): every operation is checked against
   the same one on unsigned __int128, truncated or sign-extended back to
   the width (the __int128 lowering is checked against gcc by
   tests/real_c/int128.c). Exits 0 when all agree, else the number of the
   failing check. */
typedef unsigned __int128 u128;
typedef __int128 s128;
static unsigned long long state = 0x853c49e6748fea9bULL;
static unsigned long long next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static u128 rnd(void) {
  unsigned long long a = next(), b = next();
  u128 v = ((u128)a << 64) | b;
  return v >> (a % 128);
}

#define CHECKS(N, U, S, ID)                                                                      \
  {                                                                                              \
    u128 m = ((u128)1 << N) - 1 + ((u128)1 << N);                                                \
    for (int i = 0; i < 300; i++) {                                                              \
      u128 xa = rnd() & m, xb = rnd() & m;                                                       \
      U a = (U)xa, b = (U)xb;                                                                    \
      S sa = (S)a, sb = (S)b;                                                                    \
      s128 wa = (s128)sa, wb = (s128)sb;                                                         \
      unsigned k = (unsigned)(next() % (N + 1));                                                 \
      if ((u128)(U)(a + b) != ((xa + xb) & m)) return ID + 1;                                    \
      if ((u128)(U)(a - b) != ((xa - xb) & m)) return ID + 2;                                    \
      if ((u128)(U)(a * b) != ((xa * xb) & m)) return ID + 3;                                    \
      if (b != 0 && (u128)(a / b) != xa / xb) return ID + 4;                                     \
      if (b != 0 && (u128)(a % b) != xa % xb) return ID + 5;                                     \
      if (sb != 0 && !(sb == -1 && sa == -sa && sa != 0)) {                                      \
        if ((s128)(S)(sa / sb) != (s128)(S)(wa / wb)) return ID + 6;                             \
        if ((s128)(sa % sb) != wa % wb) return ID + 7;                                           \
      }                                                                                          \
      if ((u128)(U)(a << k) != ((xa << k) & m)) return ID + 8;                                   \
      if ((u128)(a >> k) != xa >> k) return ID + 9;                                              \
      if ((s128)(sa >> k) != wa >> k) return ID + 10;                                            \
      if ((a < b) != (xa < xb) || (a >= b) != (xa >= xb)) return ID + 11;                        \
      if ((sa < sb) != (wa < wb) || (sa >= sb) != (wa >= wb) || (sa > 0) != (wa > 0)) return ID + 12; \
      if ((long long)sa != (long long)wa || (unsigned)a != (unsigned)xa) return ID + 13;         \
      long long r = (long long)next();                                                           \
      if ((u128)(U)r != ((u128)(s128)r & m)) return ID + 14;                                     \
    }                                                                                            \
  }

int main(void) {
  CHECKS(71, unsigned _BitInt(72), _BitInt(72), 0)
  CHECKS(99, unsigned _BitInt(100), _BitInt(100), 20)
  CHECKS(126, unsigned _BitInt(127), _BitInt(127), 40)
  return 0;
}
