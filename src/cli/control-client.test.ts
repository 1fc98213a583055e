import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliHarness } from '../../test/support/cli.js';
import { fakeClock } from '../core/clock.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { controlPlaneUrl } from './control-client.js';
import type { CliContext } from './context.js';

const BAD_PORT = 'SVC_METRICS_PORT: invalid port "9464x" (expected an integer 0-65535; 0 disables the listener)';

describe('controlPlaneUrl without --url or a running daemon', () => {
  it('finds the control plane by the same reading: the port, disabled at 0, refused when invalid', () => {
    const ctx = (env: NodeJS.ProcessEnv): CliContext => cliHarness({ SVC_HOME: '/nonexistent/svc-home', ...env }, '/', fakeClock(0)).ctx;
    assert.equal(controlPlaneUrl(ctx({}), undefined), 'http://127.0.0.1:9464');
    assert.equal(controlPlaneUrl(ctx({ SVC_METRICS_PORT: '9600' }), undefined), 'http://127.0.0.1:9600');
    assert.throws(() => controlPlaneUrl(ctx({ SVC_METRICS_PORT: '0' }), undefined), (err: unknown) => err instanceof RuntimeError
      && err.message === 'the control plane is disabled (SVC_METRICS_PORT=0)');
    // Before, a port that was not digits quietly meant 9464: a typo reached another daemon.
    assert.throws(() => controlPlaneUrl(ctx({ SVC_METRICS_PORT: '9464x' }), undefined), (err: unknown) => err instanceof UsageError && err.message === BAD_PORT);
  });
});
