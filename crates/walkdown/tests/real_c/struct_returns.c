/* Structs of 9 to 16 bytes come back in registers on x86-64 as
   first-class aggregates: { i64, i64 }, { double, double }, { double, i32 },
   <2 x float>, { <2 x float>, float }; also through function pointers,
   in a loop, and nested in expressions. */
#include <stdio.h>
struct L { long long a, b; };
struct D { double x, y; };
struct M { double x; int k; };
struct F { float x, y; };
struct F3 { float x, y, z; };
struct C { char c[12]; };
static struct L mk(long long a) { struct L l = { a, a * 2 }; return l; }
static struct D md(double a) { struct D d = { a, a / 4 }; return d; }
static struct M mm(double a) { struct M m = { a, 3 }; return m; }
static struct F mf(float a) { struct F f = { a, a + 1 }; return f; }
static struct F3 mf3(float a) { struct F3 f = { a, a * 2, a * 3 }; return f; }
static struct C mc(int k) { struct C c; for (int i = 0; i < 12; i++) c.c[i] = (char)(k + i); return c; }
static struct L add(struct L p, struct L q) { struct L r = { p.a + q.a, p.b + q.b }; return r; }
int main(void) {
  struct L (*fp)(long long) = mk;
  struct L acc = { 0, 0 };
  for (int i = 1; i <= 5; i++) acc = add(acc, fp(i));
  struct D d = md(3.0);
  struct M m = mm(2.5);
  struct F f = mf(1.5f);
  struct F3 g = mf3(2.5f);
  struct C c = mc(40);
  long long sum = acc.a + acc.b + mk(7).b;
  printf("%lld %lld %lld %d %d %d %d %d %d %d\n", acc.a, acc.b, sum, (int)(d.y * 100), (int)m.x, m.k,
         (int)(f.y * 10), (int)(g.z * 10), c.c[0], c.c[11]);
  return (int)(sum & 0x3f);
}
