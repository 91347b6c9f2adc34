/* walkdown's replacement for musl's arch/<arch>/pthread_arch.h when musl is
 * compiled for walkdown (see crates/frontend/build.rs).
 *
 * musl finds the calling thread's descriptor (errno, the current locale)
 * through the thread pointer, read with inline assembly from %fs or %gs.
 * A program under walkdown has one thread and no thread pointer, so the
 * descriptor is one static object the glue defines: the same lookups, in
 * plain C the frontend can lower. */
struct __pthread;
extern struct __pthread __walkdown_thread;

static inline uintptr_t __get_tp(void)
{
	return (uintptr_t)&__walkdown_thread;
}

#if defined(__x86_64__)
#define MC_PC gregs[REG_RIP]
#else
#define MC_PC gregs[REG_EIP]
#endif
