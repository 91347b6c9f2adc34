// witness: written, empty
// No loop: the witness is an empty invariant set, written only after a
// certificate of the proof (over every block) passes the inductiveness
// check. The error needs x > 10 and x < 5 at once.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (x > 10) y = x - 10;
  if (x < 5 && y > 0) reach_error();
  return 0;
}
