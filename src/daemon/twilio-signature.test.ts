import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { twilioSignature, verifyTwilioSignature } from './twilio-signature.js';

// Twilio's own example (https://www.twilio.com/docs/usage/security, "Validating signatures from Twilio").
const TOKEN = '12345';
const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS: Array<[string, string]> = [['CallSid', 'CA1234567890ABCDE'], ['Caller', '+14158675309'], ['Digits', '1234'],
  ['From', '+14158675309'], ['To', '+18005551212']];
const SIGNATURE = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

describe('X-Twilio-Signature (§21.4)', () => {
  it('is Twilio\'s documented example, whatever order the parameters came in', () => {
    assert.equal(twilioSignature(TOKEN, URL, PARAMS), SIGNATURE);
    assert.equal(twilioSignature(TOKEN, URL, [...PARAMS].reverse()), SIGNATURE);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, URL, PARAMS), true);
  });

  it('refuses another token, URL, query, parameter value, an added parameter, and a missing or empty header', () => {
    assert.equal(verifyTwilioSignature('54321', SIGNATURE, URL, PARAMS), false);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, 'https://mycompany.com/myapp.php?foo=1&bar=3', PARAMS), false);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, 'https://mycompany.com/myapp.php', PARAMS), false);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, URL, PARAMS.map(([k, v]) => [k, k === 'Digits' ? '4' : v] as [string, string])), false);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, URL, [...PARAMS, ['Extra', '1']]), false);
    assert.equal(verifyTwilioSignature(TOKEN, undefined, URL, PARAMS), false);
    assert.equal(verifyTwilioSignature(TOKEN, '', URL, PARAMS), false);
  });

  it('takes the URL with the scheme\'s default port written out or left off, as Twilio\'s libraries do; another port is another URL', () => {
    const withPort = twilioSignature(TOKEN, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', PARAMS);
    assert.equal(verifyTwilioSignature(TOKEN, withPort, URL, PARAMS), true);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', PARAMS), true);
    assert.equal(verifyTwilioSignature(TOKEN, SIGNATURE, 'https://mycompany.com:8443/myapp.php?foo=1&bar=2', PARAMS), false);
  });

  it('a name sent twice adds each value, sorted', () => {
    const sig = twilioSignature(TOKEN, URL, [['B', '2'], ['A', 'y'], ['A', 'x']]);
    assert.equal(sig, twilioSignature(TOKEN, URL, [['A', 'x'], ['A', 'y'], ['B', '2']]));
    assert.notEqual(sig, twilioSignature(TOKEN, URL, [['A', 'x'], ['B', '2']]));
  });
});
