import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitStatements } from '../../src/index.js';

test('splits at top-level semicolons only', () => {
  const sql = `
    -- a comment; with a semicolon
    CREATE TABLE a (note text DEFAULT 'x;y', "odd;name" int);
    /* block; comment */ CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END; $body$ LANGUAGE plpgsql;
    INSERT INTO a (note) VALUES ('it''s; fine');
  `;
  assert.deepEqual(splitStatements(sql), [
    `CREATE TABLE a (note text DEFAULT 'x;y', "odd;name" int)`,
    'CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END; $body$ LANGUAGE plpgsql',
    "INSERT INTO a (note) VALUES ('it''s; fine')",
  ]);
});
