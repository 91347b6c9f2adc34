// EVA assumes the index stays inside the member array `slots` (an
// index_bound alarm that ends no execution in walkdown: the write stays
// inside the struct) and then proves the error unreachable. Under that
// assumption only: with i == 4 the write lands in `tag` and the error is
// reached.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct record {
  int slots[4];
  int tag;
} rec;

int main(void) {
  int i = __VERIFIER_nondet_int();
  int before = rec.tag;
  if (i < 0 || i > 4) return 0;
  rec.slots[i] = 7;
  if (rec.tag != before) reach_error();
  return 0;
}
