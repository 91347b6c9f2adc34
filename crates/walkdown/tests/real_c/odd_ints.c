/* Structs of 3, 5, 6 and 7 bytes travel as i24, i40, i48 and i56 values on
   x86-64 (parameters and returns), and bit-fields are read and written
   through storage units of such widths; signed bit-fields need sign
   extension from an odd bit. */
#include <stdio.h>
struct S3 { char a, b, c; };
struct S5 { char a[5]; };
struct S6 { short a, b, c; };
struct S7 { char a; short b; char c[4]; } __attribute__((packed));
struct B { signed int x : 19; unsigned int y : 13; signed long long z : 37; unsigned long long w : 27; };
#pragma pack(push, 1)
struct P { signed char c; signed int f0 : 21; unsigned int f1 : 11; signed long long f2 : 20; };
#pragma pack(pop)

static struct S3 twist3(struct S3 s) { s.a += s.c; s.b -= 1; return s; }
static struct S5 twist5(struct S5 s) { s.a[4] = s.a[0] * 3; return s; }
static struct S6 twist6(struct S6 s) { s.c = s.a - s.b; s.a = -7; return s; }
static struct S7 twist7(struct S7 s) { s.b = (short)(s.b * 5); s.c[3] = s.a; return s; }
static struct B g = { -5000, 77, -12345678901LL, 99999 };
static struct P pk = { -3, -1000000, 2047, -524287 };

int main(void) {
  struct S3 s3 = { 10, 20, 30 };
  struct S5 s5 = { { 1, 2, 3, 4, 5 } };
  struct S6 s6 = { 100, -200, 300 };
  struct S7 s7 = { -1, 1234, { 9, 8, 7, 6 } };
  s3 = twist3(s3);
  s5 = twist5(s5);
  s6 = twist6(s6);
  s7 = twist7(s7);
  printf("%d %d %d | %d %d | %d %d %d | %d %d %d\n", s3.a, s3.b, s3.c, s5.a[0], s5.a[4], s6.a, s6.b, s6.c, s7.a, s7.b, s7.c[3]);
  g.x = g.x * 3 + 1; g.y -= 100; g.z = g.z / 7 - g.x; g.w += 1u << 26;
  printf("%d %u %lld %llu\n", g.x, g.y, (long long)g.z, (unsigned long long)g.w);
  pk.f0 = pk.f0 >> 3; pk.f1 = pk.f1 * 3; pk.f2 = pk.f2 % 1000 - (pk.f0 < -100);
  printf("%d %d %u %lld\n", pk.c, pk.f0, pk.f1, (long long)pk.f2);
  long long q = g.z; q = q / -3; int r = g.x % 5; int lt = g.z < g.x; 
  printf("%lld %d %d %d\n", q, r, lt, (int)(g.w > 100));
  return (g.x + pk.f0) & 0x7f;
}
