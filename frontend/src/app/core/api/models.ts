/** Names for the generated schema's models, so features import `GraphNode` rather than a deep index type. */
import type { components } from './schema';

type S = components['schemas'];

export type AskRequest = S['AskRequest'];
export type AskResponse = S['AskResponse'];
export type SourceCitation = S['Citation'];
export type ToolCall = S['ToolCallOut'];
export type Confidence = S['ConfidenceOut'];
/** How the question was understood: shape, route, conditions (docs/agent.md). */
export type Understood = S['UnderstoodOut'];
export type GraphNode = S['GraphNode'];
export type GraphEdge = S['GraphEdge'];
export type GraphResponse = S['GraphResponse'];
export type DocumentDetail = S['DocumentDetail'];
export type DocumentOut = S['DocumentOut'];
export type Neighbor = S['NeighborOut'];
export type Version = S['VersionOut'];
export type VersionDetail = S['VersionDetail'];
export type Change = S['ChangeOut'];
export type SourceStatus = S['SourceOut'];
export type Run = S['RunOut'];
export type Upload = S['UploadOut'];
export type Stats = S['StoreStats'];
export type Health = S['HealthResponse'];
export type ErrorBody = S['ErrorResponse'];

/** The source filter values the API accepts (`AskRequest.sources`, `GET /graph?types=`). */
export const SOURCE_KINDS = ['jira', 'confluence', 'github', 'files', 'web', 'upload'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export type Conversation = S['ConversationOut'];
export type AuthStatus = S['AuthStatus'];
export type AuthUser = S['UserOut'];
export type DemoUser = S['DemoUserOut'];
export type ApiToken = S['TokenOut'];
export type NewApiToken = S['TokenCreated'];
export type Memory = S['MemoryOut'];
export type RecalledMemory = S['RecalledOut'];
export type VerifiedAnswer = S['VerifiedAnswerOut'];
