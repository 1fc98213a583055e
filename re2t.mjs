import { RE2JS } from 're2js';
const rand = (n, alpha) => { let s=''; for (let i=0;i<n;i++) s += alpha[Math.floor(Math.random()*alpha.length)]; return s; };
const cases = [
  ['(?:a?){100}a{100}a*', 'a'.repeat(1024)],
  ['(?:a?){60}a{60}a*', 'a'.repeat(1024)],
  ['(?:a?){30}a{30}a*', 'a'.repeat(1024)],
  ['(?:.?){120}.*', 'a'.repeat(1024)],
  ['(?:[ab]*a[ab]{80})*', rand(1024,'ab')],
  ['.*-.*-.*-.*-prod', '-'.repeat(1024)],
  ['(?:a?){1000}a{1000}', 'a'.repeat(1024)],
];
for (const [p, s] of cases) {
  for (const big of [false, true]) {
  const re = RE2JS.compile(`^(?:${p})$`);
  const r2 = re.re2Input;
  r2.lazyDFA = { match: () => null };  // DFA gives up: the backtracker or NFA runs
  const input = big ? s + s.slice(0, 1024) : s;
  re.testExact(input);
  let t = performance.now(); let r;
  for (let i=0;i<5;i++) r = re.testExact(input);
  console.log(re.programSize(), p, input.length, ((performance.now()-t)/5).toFixed(3), 'ms', r);
  }
}
