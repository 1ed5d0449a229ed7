/* SPDX-License-Identifier: MIT */
/*
 * ulsm/control.h - control from outside: an endpoint in the process, on
 * a unix socket only its owner reaches, through which ulsmctl(1) shows
 * what the library knows, records tracepoints, flips the switches the
 * program names and toggles hook-set modules (docs/control.md).
 *
 *	#include <ulsm/control.h>
 *
 *	DEFINE_STATIC_SWITCH(verbose_log, "log every request at debug level");
 *
 *	int main(void)
 *	{
 *		daemonise();			// a forked child does not inherit it
 *		ulsm_control_start();		// or ULSM_CONTROL=1
 *		...
 *		if (static_branch_unlikely(&verbose_log))	// a NOP while off
 *			log_request(r);
 *	}
 *
 *	$ ulsmctl switch -p 1234 verbose_log on
 *
 * A switch is an ordinary DEFINE_STATIC_KEY_FALSE key (the program may
 * flip it too) plus a record of its name and description, which a
 * constructor registers and a destructor removes (dlclose). Only switches
 * can be flipped from outside; every change goes through the library's
 * usual update (static_branch_enable/disable): all or nothing.
 *
 * Caveats: the endpoint is off unless asked for; it refuses to start in a
 * setuid or setgid program (-EPERM). Its thread, "ulsm-control", waits in
 * poll() holding no lock; the program's hot paths never wait for it.
 */
#ifndef ULSM_CONTROL_H
#define ULSM_CONTROL_H

#include <ulsm/static_key.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A switch's record (DEFINE_STATIC_SWITCH); the library links them.
 * @size: sizeof(struct ulsm_switch) where it was defined: a later library
 *        reads no field past it
 */
struct ulsm_switch {
	unsigned int size;
	const char *name;
	const char *description;
	struct static_key_false *key;
	struct ulsm_switch *next;	/* the library's */
};

/**
 * ulsm_control_start - open the control endpoint of this process
 *
 * Creates (or checks) the socket directory, $XDG_RUNTIME_DIR/ulsm/ or
 * /tmp/ulsm-<euid>/, binds ulsm.<pid>.sock in it (mode 0600) and starts
 * the endpoint's thread. ULSM_CONTROL=1 in the environment calls it when
 * the library starts.
 *
 * Return: 0 (also when it runs already), -EPERM (a setuid or setgid
 * program; a directory of another owner or with access for group or
 * others), -ELOOP (the directory is a symbolic link), -EADDRINUSE (a
 * program listens on the socket's path), -EEXIST (something else is
 * there), -ENAMETOOLONG, or the errno of a failed system call; the
 * message is in ulsm_last_error().
 */
int ulsm_control_start(void);

/**
 * ulsm_control_stop - close the endpoint: its thread, its connections
 * (a recording in progress is detached) and its socket file
 *
 * Nothing when it does not run. Not from the endpoint's own thread.
 */
void ulsm_control_stop(void);

/* The switches' registration, by DEFINE_STATIC_SWITCH's constructor. */
void ulsm__switch_add(struct ulsm_switch *sw);
void ulsm__switch_remove(struct ulsm_switch *sw);

#define ULSM__SW(name)	ulsm__switch_##name

/**
 * DEFINE_STATIC_SWITCH - a false static key that ulsmctl may flip
 * @name: the key's name, and the switch's
 * @desc: one line that says what it does (a string literal)
 *
 * At file scope, with a ';' after it, as a declaration.
 */
#define DEFINE_STATIC_SWITCH(name, desc)				\
	DEFINE_STATIC_KEY_FALSE(name);					\
	static struct ulsm_switch ULSM__SW(name) = {			\
		sizeof(struct ulsm_switch), #name, desc, &name, 0	\
	};								\
	__attribute__((constructor)) static void			\
	ulsm__switch_ctor_##name(void)					\
	{								\
		ulsm__switch_add(&ULSM__SW(name));			\
	}								\
	__attribute__((destructor)) static void				\
	ulsm__switch_dtor_##name(void)					\
	{								\
		ulsm__switch_remove(&ULSM__SW(name));			\
	}								\
	ULSM__END_DECL

#ifdef __cplusplus
}
#endif

#endif /* ULSM_CONTROL_H */
