/* walkdown's replacement for musl's arch/<arch>/syscall_arch.h when musl is
 * compiled for walkdown (see crates/frontend/build.rs).
 *
 * musl makes system calls with inline assembly, which the frontend cannot
 * lower. Here each one is a call of __walkdown_syscall (glue.c), which
 * fails with ENOSYS. build.rs leaves out every file that calls it, except
 * the few whose only system call sits on a path no program under walkdown
 * takes (waking the waiters of a FILE's lock: one thread, no waiters); the
 * system calls a program's input needs (read, open, close) are the
 * functions of env.c. */
#define __SYSCALL_LL_E(x) (x)
#define __SYSCALL_LL_O(x) (x)

long __walkdown_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6);

static __inline long __syscall0(long n) { return __walkdown_syscall(n, 0, 0, 0, 0, 0, 0); }
static __inline long __syscall1(long n, long a1) { return __walkdown_syscall(n, a1, 0, 0, 0, 0, 0); }
static __inline long __syscall2(long n, long a1, long a2) { return __walkdown_syscall(n, a1, a2, 0, 0, 0, 0); }
static __inline long __syscall3(long n, long a1, long a2, long a3)
{
	return __walkdown_syscall(n, a1, a2, a3, 0, 0, 0);
}
static __inline long __syscall4(long n, long a1, long a2, long a3, long a4)
{
	return __walkdown_syscall(n, a1, a2, a3, a4, 0, 0);
}
static __inline long __syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	return __walkdown_syscall(n, a1, a2, a3, a4, a5, 0);
}
static __inline long __syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return __walkdown_syscall(n, a1, a2, a3, a4, a5, a6);
}

#define IPC_64 0
