import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actionSocketFor } from './action-socket.js';

const paths = { adminSocket: '/home/ops/.svc/admin.sock' };
const HOME = '/home/ops/.svc';
const running = { state: 'running' as const, pid: 4242, controlPlane: 'http://127.0.0.1:9464' };

describe('actionSocketFor (issue 33: svc console --url acts only on the daemon it shows)', () => {
  it('the home\'s own control plane, running under its pid: actions through the home\'s admin socket', () => {
    assert.deepEqual(actionSocketFor(paths, HOME, 'http://127.0.0.1:9464', running, 4242), { socket: '/home/ops/.svc/admin.sock' });
  });

  it('another daemon\'s control plane on this machine: read-only, naming both', () => {
    assert.deepEqual(actionSocketFor(paths, HOME, 'http://127.0.0.1:9999', running, 4242), { socket: null,
      why: 'http://127.0.0.1:9999 is not the control plane of the daemon of $SVC_HOME /home/ops/.svc (http://127.0.0.1:9464)' });
    assert.equal(actionSocketFor(paths, HOME, 'http://127.0.0.2:9464', running, 4242).socket, null, 'another loopback address');
  });

  it('no daemon in this home, a stale up-state, or a listener elsewhere: read-only', () => {
    const none = { socket: null, why: 'no svc runs in $SVC_HOME /home/ops/.svc to act through' };
    assert.deepEqual(actionSocketFor(paths, HOME, 'http://127.0.0.1:9464', running, null), none);
    assert.deepEqual(actionSocketFor(paths, HOME, 'http://127.0.0.1:9464', { ...running, pid: 1 }, 4242), none);
    assert.deepEqual(actionSocketFor(paths, HOME, 'http://127.0.0.1:9464', null, 4242), none);
    assert.deepEqual(actionSocketFor(paths, HOME, 'https://svc.example.com', running, 4242), { socket: null, why: 'https://svc.example.com is not on this machine' });
  });
});
