/* walkdown's replacement for musl's arch/<arch>/atomic_arch.h when musl is
 * compiled for walkdown (see crates/frontend/build.rs).
 *
 * musl's atomics are inline assembly (lock cmpxchg, bsf). A program under
 * walkdown runs one thread, so compare-and-swap is a plain read and write;
 * musl's generic atomic.h builds every other operation (and its bit scans,
 * by a de Bruijn table) from this one in C. */
#define a_cas a_cas
static inline int a_cas(volatile int *p, int t, int s)
{
	int old = *p;
	if (old == t) *p = s;
	return old;
}

#define a_cas_p a_cas_p
static inline void *a_cas_p(volatile void *p, void *t, void *s)
{
	void *old = *(void *volatile *)p;
	if (old == t) *(void *volatile *)p = s;
	return old;
}
