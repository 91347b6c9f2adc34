// Every float operation, comparison and conversion of C on the inputs,
// folded into the exit status (FNV-1a over the results' bits). The first
// input selects one result (its number) or all of them (-1), so that a
// disagreement can be traced to its operation.
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern long long __VERIFIER_nondet_longlong(void);
extern unsigned long long __VERIFIER_nondet_ulonglong(void);
extern float __VERIFIER_nondet_float(void);
extern double __VERIFIER_nondet_double(void);

static unsigned h = 2166136261u;
static int only, count;

static void mix(unsigned v) {
  if (only < 0 || only == count) h = (h ^ v) * 16777619u;
  count++;
}
static void mixf(float f) {
  union { float f; unsigned u; } x;
  x.f = f;
  mix(x.u);
}
static void mixd(double d) {
  union { double d; unsigned long long u; } x;
  x.d = d;
  mix((unsigned)x.u ^ (unsigned)(x.u >> 32) * 31u);
}
static void mixl(unsigned long long v) { mix((unsigned)v ^ (unsigned)(v >> 32) * 31u); }

int main(void) {
  only = __VERIFIER_nondet_int();
  float f = __VERIFIER_nondet_float(), g = __VERIFIER_nondet_float();
  double d = __VERIFIER_nondet_double(), e = __VERIFIER_nondet_double();
  int i = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_uint();
  long long l = __VERIFIER_nondet_longlong();
  unsigned long long ul = __VERIFIER_nondet_ulonglong();
  /* 0-4: float arithmetic */
  mixf(f + g); mixf(f - g); mixf(f * g); mixf(f / g); mixf(-f);
  /* 5-9: double arithmetic */
  mixd(d + e); mixd(d - e); mixd(d * e); mixd(d / e); mixd(-d);
  /* 10-11: comparisons */
  mix((f < g) | (f <= g) << 1 | (f == g) << 2 | (f != g) << 3 | (f > g) << 4 | (f >= g) << 5 | (f != f) << 6);
  mix((d < e) | (d <= e) << 1 | (d == e) << 2 | (d != e) << 3 | (d > e) << 4 | (d >= e) << 5 | (d != d) << 6);
  /* 12-13: widths */
  mixd((double)f); mixf((float)d);
  /* 14-23: floats to integers */
  mix((unsigned)(int)f); mix((unsigned)(int)d); mix((unsigned)f); mix((unsigned)d);
  mixl((unsigned long long)(long long)f); mixl((unsigned long long)(long long)d);
  mixl((unsigned long long)d); mixl((unsigned long long)f);
  mix((unsigned)(short)d); mix((unsigned)(unsigned char)f);
  /* 24-31: integers to floats */
  mixf((float)i); mixd((double)i); mixf((float)u); mixd((double)u);
  mixf((float)l); mixd((double)l); mixf((float)ul); mixd((double)ul);
  /* 32-35: mixed precision, constants */
  mixd(f * d); mixf(f * 0.1f); mixd(d * 0.1); mixf((float)(f + 1e-9));
  return (int)(h & 0x7f);
}
