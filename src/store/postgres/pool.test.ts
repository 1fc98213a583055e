import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redact, redactUrl } from './pool.js';

describe('PostgreSQL URL redaction', () => {
  it('shows scheme, user, host, port and database; never a password, in the authority or the query', () => {
    assert.equal(redactUrl('postgres://svc:S3cret%23x@db.internal:5433/svc'), 'postgres://svc:***@db.internal:5433/svc');
    assert.equal(redactUrl('postgres://svc@db/svc?password=S3cret&sslmode=require'), 'postgres://svc@db/svc?…');
    assert.equal(redactUrl('postgresql://db/svc'), 'postgresql://db/svc');
    assert.equal(redactUrl('not a url'), 'the configured PostgreSQL URL');
  });

  it('removes every spelling of the secrets from a driver message', () => {
    const url = 'postgres://svc:p%40ss@db/svc?sslpassword=K3y!&password=Other';
    const message = `connect failed for ${url}: password "p@ss" (p%40ss) rejected; key K3y!; Other`;
    const out = redact(message, url);
    for (const secret of ['p@ss', 'p%40ss', 'K3y!', 'Other']) assert.ok(!out.includes(secret), `${secret} in ${out}`);
    assert.match(out, /^connect failed for postgres:\/\/svc:\*\*\*@db\/svc\?…: /);
  });
});
