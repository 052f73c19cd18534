/** Kafka's ACL semantics; see ../README.md. */
export * from '@sluice/protocol/acl/acl-types.js';
export * from '@sluice/protocol/acl/acl-filter.js';
export { AclSet, type ResourceAcls } from './acl-set.js';
export {
  Authorizer,
  AUTHORIZER_CLASS_NAMES,
  SUPPORTED_OPERATIONS,
  parseSuperUsers,
  type AuthorizerConfig,
  type Requester,
} from './authorizer.js';
