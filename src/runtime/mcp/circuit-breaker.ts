/**
 * A circuit breaker for one MCP server: closed → open after `failureThreshold` consecutive failures;
 * open refuses everything for `openMs`; the first call after that becomes the single half-open trial,
 * whose verdict closes the circuit or opens it again for another `openMs`. Pure: time comes from the
 * injected clock and nothing runs on its own (the open → half-open move happens inside tryPass).
 */
import type { Clock } from '../../core/clock.js';
import type { CircuitState } from '../../metrics/metric-names.js';

export interface CircuitBreaker {
  state(): CircuitState;
  /**
   * Whether a call may go to the server now. closed: always. open: no until openMs has passed, then the
   * circuit turns half-open and this call is its one trial. half-open with the trial in flight: no.
   * A caller that got `true` must end with success(), failure() or abandon().
   */
  tryPass(): boolean;
  /** The server answered. Closes a half-open circuit; resets the failure streak when closed. */
  success(): void;
  /** The server failed (timeout, crash, transport error, failed connect). */
  failure(): void;
  /** A passed call ended without telling anything about the server (the caller aborted): frees the trial. */
  abandon(): void;
}

export interface CircuitBreakerOptions {
  failureThreshold: number;
  openMs: number;
  clock: Clock;
  /** Called on every transition, with the new state. */
  onChange: (state: CircuitState) => void;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const { failureThreshold, openMs, clock, onChange } = options;
  if (!Number.isInteger(failureThreshold) || failureThreshold < 1) throw new RangeError('failureThreshold must be a positive integer');
  if (!(openMs >= 0)) throw new RangeError('openMs must be >= 0');
  let current: CircuitState = 'closed';
  let streak = 0;
  let openedAt = 0;
  let trialInFlight = false;

  const move = (next: CircuitState): void => {
    if (next === 'open') openedAt = clock.now(); // also on half-open → open: the open period starts again
    if (next !== 'half-open') trialInFlight = false;
    if (next === current) return;
    current = next;
    onChange(next);
  };

  return {
    state: () => current,
    tryPass() {
      switch (current) {
        case 'closed':
          return true;
        case 'open':
          if (clock.now() - openedAt < openMs) return false;
          move('half-open');
          trialInFlight = true;
          return true;
        case 'half-open':
          if (trialInFlight) return false;
          trialInFlight = true;
          return true;
      }
    },
    success() {
      streak = 0;
      // While open the period is honoured: only a trial may close the circuit.
      if (current === 'half-open') move('closed');
    },
    failure() {
      if (current === 'closed') {
        streak += 1;
        if (streak >= failureThreshold) {
          streak = 0;
          move('open');
        }
      } else if (current === 'half-open') {
        move('open');
      }
      // Failures while already open (e.g. the supervisor's reconnects) do not extend the period.
    },
    abandon() {
      if (current === 'half-open') trialInFlight = false;
    },
  };
}
