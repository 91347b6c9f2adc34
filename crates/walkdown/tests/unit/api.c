/* Small C APIs whose contracts unit mode must keep (walkdown check --entry
 * NAME): buffers paired with their lengths, a struct made by its own
 * initializer, preconditions, pointers that may or may not be NULL, a
 * callback. Two real bugs within the contracts:
 *  - last_of reads one element past its buffer;
 *  - apply divides by zero when the callback returns 7. */
#include <stdlib.h>

/* Bug: v has count elements; v[count] is one too far. */
int last_of(const int *v, unsigned count) {
  if (count == 0) return -1;
  return v[count];
}

/* The length is used, not named: k bounds the accesses in the callee. */
static int sum_n(const int *p, int k) {
  int s = 0;
  for (int i = 0; i < k; i++) s += p[i];
  return s;
}

int total(const int *vals, int mode, int how_many) {
  if (mode == 0) return 0;
  return sum_n(vals, how_many);
}

/* An output buffer whose capacity the caller passes by pointer. */
int put_digits(char *dst, unsigned long *dstcap, int x) {
  unsigned long i = 0;
  if (x < 0) x = -x;
  do {
    if (i >= *dstcap) return -1;
    dst[i++] = (char)('0' + x % 10);
    x /= 10;
  } while (x > 0 && x < 1000000);
  *dstcap = i;
  return 0;
}

/* A struct that only its initializer sets up right. */
struct counter { int *slots; int cap; int used; };

void counter_init(struct counter *c) {
  c->slots = calloc(4, sizeof(int));
  c->cap = c->slots ? 4 : 0;
  c->used = 0;
}

int counter_add(struct counter *c, int v) {
  if (c->used >= c->cap) return -1;
  c->slots[c->used++] = v;
  return c->used;
}

/* Never checks its pointer: NULL is not a legal input. */
int name_len(const char *name) {
  int n = 0;
  while (name[n] != 0 && n < 8) n++;
  return n;
}

/* Checks its pointer: NULL is a legal input. */
int safe_len(const char *s) {
  if (s == 0) return -1;
  return s[0] == 0 ? 0 : 1;
}

static const int table[4] = {10, 20, 30, 40};

/* The index must be in range: an ACSL precondition says so. */
/*@ requires 0 <= idx && idx < 4; */
int lookup(int idx) {
  return table[idx];
}

/* The same without the annotation (the test gives --requires). */
int lookup2(int idx) {
  return table[idx] + 1;
}

/* Bug: a callback may return 7. */
int apply(int (*f)(int), int x) {
  int r = f(x);
  if (r > 5) return 100 / (r - 7);
  return r;
}
