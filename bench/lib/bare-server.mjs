// The bare baselines, each in a process of its own like the daemon: `post` answers 202 JSON after
// reading the body; `json` answers a fixed JSON document. Prints the port once listening.
import { createServer } from 'node:http';

const mode = process.argv[2];
const doc = process.argv[3] ?? '{"status":"ok"}';
const server = createServer((req, res) => {
  if (mode === 'post') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = '{"status":"accepted","eventId":"00000000-0000-0000-0000-000000000000"}';
      res.writeHead(202, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(doc)) });
  res.end(doc);
});
server.listen(0, '127.0.0.1', () => { process.stdout.write(`${server.address().port}\n`); });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
