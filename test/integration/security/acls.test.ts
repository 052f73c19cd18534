// ACLs enforced on a real broker process with real clients. Over PLAINTEXT every client is
// User:ANONYMOUS; acl-matrix.ts takes the principal and the client settings as a parameter so
// that TLS and SASL principals can run the same matrix.
import { aclMatrix } from './acl-matrix.js';

aclMatrix({ principal: 'User:ANONYMOUS', host: '127.0.0.1', client: {} });
