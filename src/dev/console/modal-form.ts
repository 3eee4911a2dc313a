// A modal filled in at a prompt, one input block at a time, producing `view.state.values` exactly
// as Slack would submit it. Selects list their options and take a number or (part of) a label;
// an external select asks the app for its options, as Slack's type-ahead does.

type Json = Record<string, unknown>;

export interface Choice {
  text: string;
  value: string;
}

export type FieldKind = 'text' | 'select' | 'external' | 'conversation' | 'user' | 'unsupported';

export interface Field {
  blockId: string;
  actionId: string;
  elementType: string;
  kind: FieldKind;
  label: string;
  hint?: string;
  optional: boolean;
  /** Static options (selects, radio buttons). */
  choices: Choice[];
  /** What Enter keeps: an initial value or option. */
  initial?: string | Choice;
  /** Typed answers are not echoed (an API key). */
  secret: boolean;
}

/** What the console can offer for conversations and users. */
export interface Directory {
  channels: ReadonlyArray<{ id: string; name: string }>;
  users: ReadonlyArray<{ id: string; name: string }>;
}

/** Asks the app for an external select's options, as Slack does on type-ahead. */
export type OptionsLoader = (field: Field, query: string) => Promise<Choice[]>;

export type Answer =
  | { ok: true; state: Json }
  /** Not accepted: says why, and may list choices to pick from. */
  | { ok: false; problem: string; choices?: Choice[] };

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const plainText = (value: unknown): string =>
  isObject(value) && typeof value.text === 'string' ? value.text : '';

function choiceOf(option: unknown): Choice | undefined {
  if (!isObject(option) || typeof option.value !== 'string') return undefined;
  return { text: plainText(option.text), value: option.value };
}

function kindOf(type: string): FieldKind {
  switch (type) {
    case 'plain_text_input':
    case 'url_text_input':
    case 'email_text_input':
    case 'number_input':
      return 'text';
    case 'static_select':
    case 'radio_buttons':
    case 'checkboxes':
      return 'select';
    case 'external_select':
      return 'external';
    case 'conversations_select':
    case 'channels_select':
      return 'conversation';
    case 'users_select':
      return 'user';
    default:
      return 'unsupported';
  }
}

/** The input blocks of a view, in order. */
export function fieldsOf(view: Json, secretActionIds: ReadonlySet<string> = new Set()): Field[] {
  const blocks = Array.isArray(view.blocks) ? view.blocks : [];
  const fields: Field[] = [];
  for (const block of blocks) {
    if (!isObject(block) || block.type !== 'input' || !isObject(block.element)) continue;
    const element = block.element;
    const type = String(element.type ?? '');
    const options = Array.isArray(element.options) ? element.options : [];
    const initial =
      typeof element.initial_value === 'string'
        ? element.initial_value
        : (choiceOf(element.initial_option) ??
          (typeof element.initial_conversation === 'string'
            ? { text: element.initial_conversation, value: element.initial_conversation }
            : undefined));
    const hint = plainText(block.hint);
    fields.push({
      blockId: String(block.block_id ?? ''),
      actionId: String(element.action_id ?? ''),
      elementType: type,
      kind: kindOf(type),
      label: plainText(block.label),
      ...(hint ? { hint } : {}),
      optional: block.optional === true,
      choices: options.map(choiceOf).filter((c): c is Choice => c !== undefined),
      ...(initial !== undefined ? { initial } : {}),
      secret: secretActionIds.has(String(element.action_id ?? '')),
    });
  }
  return fields;
}

/** A choice picked by number, by exact value or label, or by a label part matching only it. */
export function pick(
  choices: readonly Choice[],
  answer: string,
): Choice | { problem: string; choices?: Choice[] } {
  const typed = answer.trim();
  if (/^\d+$/.test(typed)) {
    const chosen = choices[Number(typed) - 1];
    return chosen ?? { problem: `Pick a number from 1 to ${choices.length}.` };
  }
  const lower = typed.toLowerCase().replace(/^[#@]/, '');
  const exact = choices.find(
    (c) => c.value.toLowerCase() === lower || c.text.toLowerCase() === lower,
  );
  if (exact) return exact;
  const partial = choices.filter((c) => c.text.toLowerCase().includes(lower));
  const [only] = partial;
  if (partial.length === 1 && only) return only;
  if (partial.length === 0) return { problem: `Nothing matches "${typed}".` };
  return { problem: `"${typed}" matches several; pick one by number.`, choices: partial };
}

function selected(field: Field, choice: Choice): Json {
  const option = { text: { type: 'plain_text', text: choice.text }, value: choice.value };
  // Checkboxes submit a list (https://docs.slack.dev/reference/block-kit/block-elements/checkboxes-element):
  // the console ticks the one picked.
  if (field.elementType === 'checkboxes')
    return { type: field.elementType, selected_options: [option] };
  return {
    type: field.elementType,
    selected_option: { text: { type: 'plain_text', text: choice.text }, value: choice.value },
  };
}

/** An empty answer: the initial value, nothing (optional), or a request to answer. */
function emptyState(field: Field): Answer {
  const initial = field.initial;
  if (initial !== undefined) {
    if (typeof initial === 'string') return { ok: true, state: textState(field, initial) };
    return { ok: true, state: stateFor(field, initial) };
  }
  if (field.optional) return { ok: true, state: stateFor(field, undefined) };
  return { ok: false, problem: `${field.label} is required.` };
}

function textState(field: Field, value: string): Json {
  return { type: field.elementType, value };
}

function stateFor(field: Field, choice: Choice | undefined): Json {
  switch (field.kind) {
    case 'text':
      return { type: field.elementType, value: choice?.value ?? null };
    case 'conversation':
      return {
        type: field.elementType,
        [field.elementType === 'channels_select' ? 'selected_channel' : 'selected_conversation']:
          choice?.value ?? null,
      };
    case 'user':
      return { type: field.elementType, selected_user: choice?.value ?? null };
    default:
      if (!choice && field.elementType === 'checkboxes')
        return { type: field.elementType, selected_options: [] };
      return choice ? selected(field, choice) : { type: field.elementType, selected_option: null };
  }
}

/** Reads one typed answer for a field into its submitted state. */
export async function answerField(
  field: Field,
  typed: string,
  directory: Directory,
  loadOptions: OptionsLoader,
): Promise<Answer> {
  if (typed.trim() === '') return emptyState(field);
  const fromChoices = (choices: readonly Choice[]): Answer => {
    const chosen = pick(choices, typed);
    return 'problem' in chosen
      ? { ok: false, ...chosen }
      : { ok: true, state: stateFor(field, chosen) };
  };
  switch (field.kind) {
    case 'text':
      return { ok: true, state: textState(field, typed) };
    case 'select':
      return fromChoices(field.choices);
    case 'conversation':
      return fromChoices(directory.channels.map((c) => ({ text: `#${c.name}`, value: c.id })));
    case 'user':
      return fromChoices(directory.users.map((u) => ({ text: `@${u.name}`, value: u.id })));
    case 'external': {
      // A number refers to the list shown (loaded with an empty query); words are a search.
      const query = /^\d+$/.test(typed.trim()) ? '' : typed.trim();
      return fromChoices(await loadOptions(field, query));
    }
    default:
      return { ok: false, problem: `The console cannot fill a ${field.elementType} field.` };
  }
}

/** The choices a field lists when asked (external ones are loaded). */
export async function choicesFor(
  field: Field,
  directory: Directory,
  loadOptions: OptionsLoader,
): Promise<Choice[]> {
  switch (field.kind) {
    case 'select':
      return field.choices;
    case 'external':
      return loadOptions(field, '');
    case 'conversation':
      return directory.channels.map((c) => ({ text: `#${c.name}`, value: c.id }));
    case 'user':
      return directory.users.map((u) => ({ text: `@${u.name}`, value: u.id }));
    default:
      return [];
  }
}
