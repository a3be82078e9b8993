import type {
  Confidence,
  SourceCitation,
  SourceKind,
  ToolCall,
  Understood,
} from '../../core/api/models';

/*
 * The chat's model: the turn the store, the history, the conversations and the views share.
 * It imports none of them, so the chat's modules import it and never each other in a circle.
 */

/** One question and its answer, as the chat panel shows it. */
export interface ChatTurn {
  id: string;
  question: string;
  answer: string;
  sources: SourceCitation[];
  toolCalls: ToolCall[];
  /** verified: a reviewer's verified answer, served first (docs/memory.md). */
  mode: 'llm' | 'extractive' | 'verified' | null;
  /** Why the answer fell back (e.g. the LLM was unreachable), from the server. */
  note: string | null;
  /** answered | partial | not_found, and how sure — from the evidence, set when done. */
  status: 'answered' | 'partial' | 'not_found' | null;
  confidence: Confidence | null;
  /** The question as answered, when the server rewrote a follow-up. */
  answeredAs: string | null;
  /** "retrieving" | "generating" while streaming; null when done. */
  stage: string | null;
  streaming: boolean;
  error: string | null;
  /** The source filter the question was asked with (null: all sources). */
  filter: SourceKind[] | null;
  /** Sources the filter left out that hold a document the question names (the reader may read it). */
  filteredOut: SourceKind[];
  /** How the question was understood (its conditions, and any it could not apply), when done. */
  understood?: Understood | null;
}

export function emptyTurn(id: string, question: string): ChatTurn {
  return {
    id,
    question,
    answer: '',
    sources: [],
    toolCalls: [],
    mode: null,
    note: null,
    status: null,
    confidence: null,
    answeredAs: null,
    stage: null,
    streaming: false,
    error: null,
    filter: null,
    filteredOut: [],
  };
}

let counter = 0;
export function newTurnId(): string {
  counter += 1;
  return `t${Date.now().toString(36)}${counter}`;
}
