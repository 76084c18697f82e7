/**
 * The knowledge graph's calls (entities and the relations between them), the same as the
 * Python client's; `MemoryClient` has them all.
 */

import { Call, Connection } from "./transport.js";
import type { Entity, EntityPage, Json, Page, Relation, When } from "./types.js";
import { given, query, seg } from "./values.js";

export interface RelateOptions {
  subject_kind?: string;
  object_kind?: string;
  valid_from?: When;
  memory_ids?: number[];
  turn_ids?: number[];
}

export interface SplitOptions {
  aliases?: string[];
  kind?: string;
  memory_ids?: number[];
  relation_ids?: number[];
}

export class GraphCalls {
  protected readonly connection: Connection;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  protected send<T>(call: Call): Promise<T> {
    return this.connection.send<T>(call);
  }

  /** The people, organisations, projects, places... of the user's life (first page). */
  async entities(filter: { kind?: string; q?: string } = {}): Promise<Entity[]> {
    const answer = await this.send<Page<Entity>>({ method: "GET", path: "graph/entities/", query: query({ ...filter }) });
    return answer.results;
  }

  /** An entity's page: the entity, its relations now and before, its memories. */
  entity(entityId: number): Promise<EntityPage> {
    return this.send({ method: "GET", path: `graph/entities/${seg(entityId)}/` });
  }

  /** An entity called `name` (the one that already goes by it or an alias, if any). */
  addEntity(name: string, options: { kind?: string; aliases?: string[] } = {}): Promise<Entity> {
    return this.send({ method: "POST", path: "graph/entities/", body: given({ name, ...options }) });
  }

  /** Add or remove names an entity goes by; `taken` lists names another entity has. */
  entityAliases(entityId: number, change: { add?: string[]; remove?: string[] }): Promise<{ entity: Entity; taken: string[] }> {
    return this.send({ method: "POST", path: `graph/entities/${seg(entityId)}/aliases/`, body: given({ ...change }) });
  }

  /** `other` is the same as `into`: its aliases, memories and relations move over. */
  mergeEntities(into: number, other: number): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: `graph/entities/${seg(into)}/merge/`, body: { other } });
  }

  /** A new entity `name` takes these aliases, memories and relations of one. */
  splitEntity(entityId: number, name: string, options: SplitOptions = {}): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: `graph/entities/${seg(entityId)}/split/`, body: given({ name, ...options }) });
  }

  /** The relations, newest first (first page): of one entity, only current or only ended ones. */
  async relations(filter: { entity?: number; current?: boolean } = {}): Promise<Relation[]> {
    const answer = await this.send<Page<Relation>>({ method: "GET", path: "graph/relations/", query: query({ ...filter }) });
    return answer.results;
  }

  /**
   * `subject` `type` `object` ("me", "partner_of", "Rui"): each end an entity id or a name.
   * A new works_at, lives_in or partner_of ends the one it contradicts.
   */
  relate(subject: number | string, type: string, object: number | string, options: RelateOptions = {}): Promise<Relation> {
    return this.send({ method: "POST", path: "graph/relations/", body: given({ subject, type, object, ...options }) });
  }

  /** The relation stopped holding (now, or `at`); it is kept with its end. */
  endRelation(relationId: number, at?: When): Promise<Relation> {
    return this.send({ method: "POST", path: `graph/relations/${seg(relationId)}/end/`, body: given({ at }) });
  }
}
