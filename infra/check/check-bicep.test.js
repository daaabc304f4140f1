'use strict';
// Tests of the checker itself (node --test): a broken or too-new template must fail with file:line.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

function check(source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bicep-check-'));
  const file = path.join(dir, 'sample.bicep');
  fs.writeFileSync(file, source);
  const run = spawnSync(process.execPath, [path.join(__dirname, 'check-bicep.js'), file], {
    encoding: 'utf8',
  });
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: run.status, out: run.stdout + run.stderr, file };
}

test('a valid classic template passes', () => {
  const r = check("param n string\nresource r 'A.B/c@2024-01-01' = if (!empty(n)) {\n  name: n\n}\n");
  assert.strictEqual(r.status, 0, r.out);
});

test('an unclosed array is reported with its line and fails', () => {
  const r = check("resource r 'A.B/c@2024-01-01' = {\n  name: 'x'\n  properties: {\n    list: [\n  }\n}\n");
  assert.strictEqual(r.status, 1, r.out);
  assert.match(r.out, /sample\.bicep:4:\d+: MISSING/);
});

test('a stray token is reported as ERROR', () => {
  const r = check("var a = {\n  b: 1 2\n}\n");
  assert.strictEqual(r.status, 1, r.out);
  assert.match(r.out, /sample\.bicep:2:\d+: ERROR/);
});

test('newer syntax is reported', () => {
  const r = check("param p string?\nvar a = p ?? 'x'\n");
  assert.strictEqual(r.status, 1, r.out);
  assert.match(r.out, /sample\.bicep:1:\d+: NEWER SYNTAX \(nullable type\)/);
  assert.match(r.out, /sample\.bicep:2:\d+: NEWER SYNTAX \(coalesce \?\?\)/);
});

test('the real templates pass', () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'check-bicep.js'), path.join(__dirname, '..')], {
    encoding: 'utf8',
  });
  assert.strictEqual(run.status, 0, run.stdout + run.stderr);
});
