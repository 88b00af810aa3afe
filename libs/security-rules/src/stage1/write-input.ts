/**
 * The fields of a memory write as they arrive (snake_case, as the protos and the REST bodies).
 * Every typed write request (AddMemory, AddEpisodic, AddSemantic, AddProcedural, AddControl) is
 * assignable to it. Stage 1 treats every field as untrusted: a wrong runtime type is a violation,
 * never an exception.
 */
export interface WriteInput {
  readonly content: string;
  readonly agent_id: string;
  readonly memory_type?: string | undefined;
  readonly scope?: string | undefined;
  readonly shared_with?: readonly string[] | undefined;
  readonly trust_level?: string | undefined;
  readonly namespace?: string | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | null | undefined;
  readonly session_id?: string | undefined;
  readonly sequence_number?: number | undefined;
  readonly entity_id?: string | undefined;
  readonly steps?: readonly string[] | undefined;
  readonly trigger_conditions?: readonly string[] | undefined;
  readonly error_pattern?: string | undefined;
  readonly severity?: string | undefined;
  readonly source_trajectory_id?: string | undefined;
}
