/* Variadic functions the program defines: va_start, va_arg of int, long,
   long long, double, pointers and structs, more arguments than argument
   registers (the overflow area), va_copy, a va_list handed to another
   function, and a variadic function called in a loop. */
#include <stdarg.h>
#include <stdio.h>
struct P { int x, y; };
struct Big { long long a, b, c; };
static long long vsum(int n, va_list ap) {
  long long s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int);
  return s;
}
static long long sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long long s = vsum(n, ap);
  va_end(ap);
  return s;
}
static double mix(const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  double acc = 0;
  for (const char *f = fmt; *f; f++) {
    switch (*f) {
    case 'i': acc += va_arg(ap, int); break;
    case 'l': acc += (double)va_arg(ap, long); break;
    case 'L': acc += (double)va_arg(ap, long long); break;
    case 'd': acc += va_arg(ap, double); break;
    case 's': acc += *va_arg(ap, const char *); break;
    case 'p': { struct P p = va_arg(ap, struct P); acc += p.x * 10 + p.y; break; }
    case 'B': { struct Big b = va_arg(ap, struct Big); acc += (double)(b.a + b.b + b.c); break; }
    }
  }
  int first = fmt[0] == 'i' ? va_arg(again, int) : -1;
  va_end(again);
  va_end(ap);
  return acc + first;
}
static int count(double x, ...) { va_list ap; va_start(ap, x); int n = 0; while (va_arg(ap, int) != 0) n++; va_end(ap); return n + (int)x; }
int main(void) {
  struct P p = { 3, 4 };
  struct Big b = { 100, 200, 300 };
  long long s = sum(9, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  double m = mix("idlLspB", 7, 2.5, 100L, 1LL << 40, "A", p, b);
  double many = mix("dddddddddddi", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 5);
  int c = 0;
  for (int i = 0; i < 3; i++) c += count(0.5 * i, 1, 2, 3, i, 0);
  printf("%lld %lld %lld %d\n", s, (long long)m, (long long)many, c);
  return (int)(s + c) & 0x7f;
}
