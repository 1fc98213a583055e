import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeOfStatus, redactor, retryAfterMs } from './llm-http.js';

describe('llm-http', () => {
  it('classifies statuses: 429 rate-limited, 529 and 503 overloaded, 408 timeout, other 5xx server, other 4xx client', () => {
    assert.deepEqual([429, 529, 503, 408, 500, 502, 504, 400, 401, 403, 404, 413, 422].map(outcomeOfStatus), [
      'rate-limited', 'overloaded', 'overloaded', 'timeout', 'server-error', 'server-error', 'server-error',
      'client-error', 'client-error', 'client-error', 'client-error', 'client-error', 'client-error']);
  });

  it('reads retry-after-ms, then retry-after in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '1500.2', 'retry-after': '9' }), now), 1501);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '7' }), now), 7000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now), 500);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }), now), 30_000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }), now), 0);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now), null);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '-3' }), now), null);
    assert.equal(retryAfterMs(new Headers(), now), null);
  });

  it('removes the key, and anything shaped like a vendor key, from text that came from outside', () => {
    const redact = redactor('sk-ant-api03-SECRETSECRETSECRET');
    assert.equal(redact('invalid x-api-key: sk-ant-api03-SECRETSECRETSECRET'), 'invalid x-api-key: [redacted]');
    assert.equal(redact('Incorrect API key provided: sk-proj-****wxyz. You can find'), 'Incorrect API key provided: [redacted] You can find');
    assert.equal(redact('key=SECRETSECRETSECRET'), 'key=SECRETSECRETSECRET', 'a fragment is not the key; only sk- shapes are masked');
    assert.equal(redact('a\n\nmultiline   message'), 'a multiline message');
    assert.equal(redact('x'.repeat(500)).length, 300);
  });
});
