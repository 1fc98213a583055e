import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeXml, message, twiml } from './twiml.js';
import { MAX_PROMPTS, acted, prompt, tellOnly } from './twilio-voice.js';

const URL = 'https://svc.example.com/twilio/voice/c1.abc';
const claims = { deliveryId: 'p0a1b2c3d4e5f.1.alice.phone', pageId: 'p0a1b2c3d4e5f', severity: 'P1' as const, title: 'Disk full on db-1', note: null };

describe('TwiML (§21.4)', () => {
  it('escapes text and attributes, and drops what XML cannot carry', () => {
    assert.equal(escapeXml(`<Say>&"x"'\u0000\u0007\ud800ok`), '&lt;Say&gt;&amp;&quot;x&quot;&apos;ok');
    assert.equal(escapeXml('😀 é'), '😀 é', 'a whole surrogate pair stays');
    assert.equal(twiml(message('svc: page p1 acknowledged by alice: <b>x</b>')),
      '<?xml version="1.0" encoding="UTF-8"?><Response><Message>svc: page p1 acknowledged by alice: &lt;b&gt;x&lt;/b&gt;</Message></Response>');
  });

  it('a triggered page asks for one key, its digits posted back to the call\'s URL; silence asks again', () => {
    assert.equal(prompt(claims, { state: 'triggered', acknowledgedBy: null }, 1, URL),
      '<?xml version="1.0" encoding="UTF-8"?><Response>'
      + `<Gather input="dtmf" numDigits="1" timeout="8" action="${URL}?n=1" method="POST">`
      + '<Say>This is svc, priority 1: Disk full on db-1. Press 4 to acknowledge, 6 to resolve.</Say></Gather>'
      + `<Redirect method="POST">${URL}?n=2</Redirect></Response>`);
  });

  it('says what is wrong after the title, escaped, before the question (§24.1)', () => {
    const withSummary = { ...claims, summary: 'Disk 97% full on /var & <growing> 2 GB/h' };
    assert.equal(prompt(withSummary, { state: 'triggered', acknowledgedBy: null }, 1, URL),
      '<?xml version="1.0" encoding="UTF-8"?><Response>'
      + `<Gather input="dtmf" numDigits="1" timeout="8" action="${URL}?n=1" method="POST">`
      + '<Say>This is svc, priority 1: Disk full on db-1. Disk 97% full on /var &amp; &lt;growing&gt; 2 GB/h. Press 4 to acknowledge, 6 to resolve.</Say>'
      + `</Gather><Redirect method="POST">${URL}?n=2</Redirect></Response>`);
  });

  it('a hostile title stays text: no verb of its own gets into the call', () => {
    const xml = prompt({ ...claims, title: '</Say><Dial>+15550000000</Dial><Say>' }, { state: 'triggered', acknowledgedBy: null }, 1, URL);
    assert.doesNotMatch(xml, /<Dial>/);
    assert.match(xml, /&lt;\/Say&gt;&lt;Dial&gt;\+15550000000&lt;\/Dial&gt;/);
  });

  it('an acknowledged page offers 6; a resolved one says so; after MAX_PROMPTS the call ends', () => {
    assert.match(prompt(claims, { state: 'acknowledged', acknowledgedBy: 'bob' }, 2, URL), /It is acknowledged by bob\. Press 6 to resolve it\./);
    assert.match(prompt(claims, { state: 'resolved', acknowledgedBy: null }, 1, URL), /already resolved\. Goodbye\.<\/Say><Hangup\/>/);
    const last = prompt(claims, { state: 'triggered', acknowledgedBy: null }, MAX_PROMPTS + 1, URL);
    assert.doesNotMatch(last, /<Gather/);
    assert.match(last, /<Hangup\/><\/Response>$/);
  });

  it('says what a key did, and a status update or a route\'s notify without asking', () => {
    assert.match(acted('ack', { ok: true, changed: true, by: 'alice' }), /<Say>Acknowledged\. The escalation has stopped\. Goodbye\.<\/Say><Hangup\/>/);
    assert.match(acted('ack', { ok: true, changed: false, by: 'bob' }), /already acknowledged by bob/);
    assert.match(acted('resolve', { ok: false, reason: 'page p1 is already resolved' }), /Nothing changed: page p1 is already resolved\./);
    assert.equal(tellOnly({ ...claims, note: 'Page p0a1b2c3d4e5f was resolved by bob.' }),
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>This is svc, priority 1: Disk full on db-1. Page p0a1b2c3d4e5f was resolved by bob. Goodbye.</Say><Hangup/></Response>');
  });
});
