// Validates the round-18 sealed set and prints counts only (never item text); the checks are in
// ../sealed-round.mjs. Usage: node libs/security-rules/eval/engram-r18-sealed/check.mjs [--require-all]
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { checkSealedRound } from '../sealed-round.mjs';

const dir = path.dirname(fileURLToPath(import.meta.url));
checkSealedRound({ round: 'r18', dir, argv: process.argv, strictPairs: true });
