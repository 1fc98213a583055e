/** Loopback addresses, for the listeners' secure defaults (contract §3.2: a non-loopback bind needs auth). */

/** Whether a bind address only accepts connections from this machine. */
export function isLoopbackBind(bind: string): boolean {
  return /^127(?:\.\d{1,3}){3}$/.test(bind) || bind === '::1' || bind.toLowerCase() === 'localhost';
}
