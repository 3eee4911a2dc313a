// Block Kit validation as strict as Slack's: what Slack answers invalid_blocks to, this refuses too.
// Limits are those of the Block Kit reference (docs.slack.dev/reference/block-kit), cited per check
// below as REF + the page's path.

/** The Block Kit reference: each limit below names its page under it. */
// REF = https://docs.slack.dev/reference/block-kit

export type Surface = 'message' | 'modal' | 'home';

// REF/blocks: "up to 50 blocks in each message, and 100 blocks in modals or Home tabs";
// docs.slack.dev/reference/views/modal-views: "blocks … Max of 100 blocks".
const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };

type Json = Record<string, unknown>;

class Problems {
  readonly list: string[] = [];
  add(path: string, problem: string): void {
    this.list.push(`${path}: ${problem}`);
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(
  problems: Problems,
  path: string,
  value: unknown,
  max: number,
  options: { plainOnly?: boolean; required?: boolean } = {},
) {
  if (value === undefined) {
    if (options.required ?? true) problems.add(path, 'missing text object');
    return;
  }
  if (!isObject(value)) return problems.add(path, 'must be a text object');
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
    return problems.add(path, 'text type must be plain_text or mrkdwn');
  }
  if (options.plainOnly && value.type !== 'plain_text') problems.add(path, 'must be plain_text');
  if (typeof value.text !== 'string' || value.text.length === 0) {
    return problems.add(path, 'text must be more than 0 characters');
  }
  if (value.text.length > max) problems.add(path, `text must be at most ${max} characters`);
}

function string(problems: Problems, path: string, value: unknown, max: number, required = false) {
  if (value === undefined) {
    if (required) problems.add(path, 'is required');
    return;
  }
  if (typeof value !== 'string' || value.length === 0)
    return problems.add(path, 'must be a non-empty string');
  if (value.length > max) problems.add(path, `must be at most ${max} characters`);
}

interface Ids {
  blocks: Set<string>;
  actions: Set<string>;
}

function actionId(problems: Problems, path: string, element: Json, ids: Ids) {
  string(problems, `${path}.action_id`, element.action_id, 255);
  if (typeof element.action_id === 'string') {
    if (ids.actions.has(element.action_id)) {
      problems.add(`${path}.action_id`, `duplicate action_id ${element.action_id}`);
    }
    ids.actions.add(element.action_id);
  }
}

function options(problems: Problems, path: string, list: unknown, max: number, min = 1) {
  if (!Array.isArray(list)) return problems.add(path, 'must be an array of options');
  if (list.length < min) problems.add(path, `must have at least ${min} option(s)`);
  if (list.length > max) problems.add(path, `must have at most ${max} options`);
  for (const [i, option] of list.entries()) {
    if (!isObject(option)) {
      problems.add(`${path}[${i}]`, 'must be an option object');
      continue;
    }
    // REF/composition-objects/option-object: text ≤ 75, value ≤ 150, description ≤ 75, url ≤ 3000.
    text(problems, `${path}[${i}].text`, option.text, 75);
    string(problems, `${path}[${i}].value`, option.value, 150, true);
    text(problems, `${path}[${i}].description`, option.description, 75, { required: false });
    string(problems, `${path}[${i}].url`, option.url, 3000);
  }
}

/**
 * REF/composition-objects/option-group-object: "An option_groups array can have a maximum number of
 * 100 option groups"; each label is plain_text of at most 75 characters, each group at most 100
 * options.
 */
function optionGroups(problems: Problems, path: string, groups: unknown) {
  if (!Array.isArray(groups)) return problems.add(path, 'must be an array of option groups');
  if (groups.length === 0) problems.add(path, 'must have at least 1 option group');
  if (groups.length > 100) problems.add(path, 'must have at most 100 option groups');
  for (const [i, group] of groups.entries()) {
    if (!isObject(group)) {
      problems.add(`${path}[${i}]`, 'must be an option group object');
      continue;
    }
    text(problems, `${path}[${i}].label`, group.label, 75, { plainOnly: true });
    options(problems, `${path}[${i}].options`, group.options, 100);
  }
}

/** Every option offered, from `options` or from `option_groups`. */
function offered(element: Json): unknown[] {
  if (Array.isArray(element.options)) return element.options;
  if (!Array.isArray(element.option_groups)) return [];
  return element.option_groups.flatMap((group) =>
    isObject(group) && Array.isArray(group.options) ? group.options : [],
  );
}

/** An option as Slack compares them: its text object, value and description. */
const sameOption = (a: unknown, b: unknown) =>
  isObject(a) &&
  isObject(b) &&
  a.value === b.value &&
  JSON.stringify(a.text) === JSON.stringify(b.text) &&
  JSON.stringify(a.description) === JSON.stringify(b.description);

/**
 * initial_option(s) "exactly matches one of the options within options" (REF/block-elements/
 * select-menu-element, radio-button-group-element, checkboxes-element, multi-select-menu-element).
 */
function initialOptions(problems: Problems, path: string, element: Json) {
  const choices = offered(element);
  const initial =
    element.initial_option !== undefined
      ? [['initial_option', element.initial_option] as const]
      : Array.isArray(element.initial_options)
        ? element.initial_options.map((option, i) => [`initial_options[${i}]`, option] as const)
        : [];
  for (const [key, option] of initial) {
    if (!choices.some((choice) => sameOption(choice, option)))
      problems.add(`${path}.${key}`, 'must exactly match one of the options');
  }
}

function element(problems: Problems, path: string, value: unknown, ids: Ids, surface: Surface) {
  if (!isObject(value)) return problems.add(path, 'must be an element object');
  switch (value.type) {
    case 'button':
      // REF/block-elements/button-element: text ≤ 75, value ≤ 2000, url ≤ 3000.
      text(problems, `${path}.text`, value.text, 75, { plainOnly: true });
      string(problems, `${path}.value`, value.value, 2000);
      string(problems, `${path}.url`, value.url, 3000);
      if (value.style !== undefined && value.style !== 'primary' && value.style !== 'danger') {
        problems.add(`${path}.style`, 'must be primary or danger');
      }
      if (value.confirm !== undefined) confirm(problems, `${path}.confirm`, value.confirm);
      return actionId(problems, path, value, ids);
    case 'static_select':
    case 'multi_static_select':
      // REF/block-elements/select-menu-element: options ≤ 100, or option_groups instead (one of
      // the two); placeholder ≤ 150.
      text(problems, `${path}.placeholder`, value.placeholder, 150, {
        plainOnly: true,
        required: false,
      });
      if (value.option_groups !== undefined && value.options !== undefined) {
        problems.add(path, 'options and option_groups cannot both be set');
      }
      if (value.option_groups !== undefined) {
        optionGroups(problems, `${path}.option_groups`, value.option_groups);
      } else {
        options(problems, `${path}.options`, value.options, 100);
      }
      initialOptions(problems, path, value);
      return actionId(problems, path, value, ids);
    case 'external_select':
    case 'multi_external_select':
      text(problems, `${path}.placeholder`, value.placeholder, 150, {
        plainOnly: true,
        required: false,
      });
      return actionId(problems, path, value, ids);
    case 'overflow':
      // REF/block-elements/overflow-menu-element: "up to five option objects"; the former
      // reference (api.slack.com/reference/block-kit/block-elements#overflow): "Maximum number of
      // options is 5, minimum is 2".
      options(problems, `${path}.options`, value.options, 5, 2);
      if (value.confirm !== undefined) confirm(problems, `${path}.confirm`, value.confirm);
      return actionId(problems, path, value, ids);
    case 'radio_buttons':
    case 'checkboxes':
      // REF/block-elements/radio-button-group-element and checkboxes-element: "A maximum of 10
      // options are allowed"; initial options must be among them.
      options(problems, `${path}.options`, value.options, 10);
      initialOptions(problems, path, value);
      return actionId(problems, path, value, ids);
    case 'plain_text_input':
    case 'url_text_input':
    case 'email_text_input':
    case 'number_input':
      if (surface === 'message')
        problems.add(path, `${value.type} only works in modals and Home tabs`);
      text(problems, `${path}.placeholder`, value.placeholder, 150, {
        plainOnly: true,
        required: false,
      });
      if (typeof value.max_length === 'number' && value.max_length > 3000) {
        problems.add(`${path}.max_length`, 'must be at most 3000');
      }
      return actionId(problems, path, value, ids);
    case 'users_select':
    case 'conversations_select':
    case 'channels_select':
    case 'multi_users_select':
    case 'multi_conversations_select':
    case 'multi_channels_select':
    case 'datepicker':
    case 'timepicker':
      return actionId(problems, path, value, ids);
    case 'image':
      string(problems, `${path}.image_url`, value.image_url, 3000, true);
      string(problems, `${path}.alt_text`, value.alt_text, 2000, true);
      return;
    default:
      problems.add(path, `unknown element type ${String(value.type)}`);
  }
}

// REF/composition-objects/confirmation-dialog-object: title ≤ 100, text ≤ 300, confirm and deny ≤ 30.
function confirm(problems: Problems, path: string, value: unknown) {
  if (!isObject(value)) return problems.add(path, 'must be a confirm object');
  text(problems, `${path}.title`, value.title, 100, { plainOnly: true });
  text(problems, `${path}.text`, value.text, 300);
  text(problems, `${path}.confirm`, value.confirm, 30, { plainOnly: true });
  text(problems, `${path}.deny`, value.deny, 30, { plainOnly: true });
}

function block(problems: Problems, path: string, value: unknown, ids: Ids, surface: Surface) {
  if (!isObject(value)) return problems.add(path, 'must be a block object');
  // REF/blocks/*: block_id ≤ 255, unique in a message or view (action_id ≤ 255 likewise, above).
  if (value.block_id !== undefined) {
    string(problems, `${path}.block_id`, value.block_id, 255);
    if (typeof value.block_id === 'string') {
      if (ids.blocks.has(value.block_id))
        problems.add(`${path}.block_id`, `duplicate block_id ${value.block_id}`);
      ids.blocks.add(value.block_id);
    }
  }
  switch (value.type) {
    case 'section':
      // REF/blocks/section-block: text ≤ 3000; at most 10 fields, each ≤ 2000.
      if (value.text === undefined && value.fields === undefined) {
        problems.add(path, 'a section needs text or fields');
      }
      if (value.text !== undefined) text(problems, `${path}.text`, value.text, 3000);
      if (value.fields !== undefined) {
        if (!Array.isArray(value.fields) || value.fields.length > 10) {
          problems.add(`${path}.fields`, 'must be at most 10 text objects');
        } else {
          for (const [i, field] of value.fields.entries()) {
            text(problems, `${path}.fields[${i}]`, field, 2000);
          }
        }
      }
      if (value.accessory !== undefined)
        element(problems, `${path}.accessory`, value.accessory, ids, surface);
      return;
    case 'header':
      // REF/blocks/header-block: plain_text, at most 150 characters.
      return text(problems, `${path}.text`, value.text, 150, { plainOnly: true });
    case 'divider':
      return;
    case 'context':
      // REF/blocks/context-block: at most 10 elements.
      if (
        !Array.isArray(value.elements) ||
        value.elements.length === 0 ||
        value.elements.length > 10
      ) {
        return problems.add(`${path}.elements`, 'must be 1 to 10 elements');
      }
      for (const [i, item] of value.elements.entries()) {
        if (isObject(item) && item.type === 'image') {
          element(problems, `${path}.elements[${i}]`, item, ids, surface);
        } else {
          text(problems, `${path}.elements[${i}]`, item, 3000);
        }
      }
      return;
    case 'actions':
      // REF/blocks/actions-block: "There is a maximum of 25 elements in each action block".
      if (
        !Array.isArray(value.elements) ||
        value.elements.length === 0 ||
        value.elements.length > 25
      ) {
        return problems.add(`${path}.elements`, 'must be 1 to 25 elements');
      }
      for (const [i, item] of value.elements.entries()) {
        element(problems, `${path}.elements[${i}]`, item, ids, surface);
      }
      return;
    case 'input':
      // REF/blocks/input-block: label and hint plain_text, each ≤ 2000.
      if (surface === 'message')
        problems.add(path, 'input blocks only work in modals and Home tabs');
      text(problems, `${path}.label`, value.label, 2000, { plainOnly: true });
      text(problems, `${path}.hint`, value.hint, 2000, { plainOnly: true, required: false });
      return element(problems, `${path}.element`, value.element, ids, surface);
    case 'image':
      // An image is a URL, or a file uploaded to Slack (slack_file: { id } or { url }).
      if (isObject(value.slack_file)) {
        if (value.image_url !== undefined)
          problems.add(path, 'image_url and slack_file cannot both be set');
        if (typeof value.slack_file.id !== 'string' && typeof value.slack_file.url !== 'string')
          problems.add(`${path}.slack_file`, 'must have an id or a url');
      } else string(problems, `${path}.image_url`, value.image_url, 3000, true);
      string(problems, `${path}.alt_text`, value.alt_text, 2000, true);
      if (value.title !== undefined)
        text(problems, `${path}.title`, value.title, 2000, { plainOnly: true });
      return;
    default:
      problems.add(path, `unknown block type ${String(value.type)}`);
  }
}

/** The problems Slack would list for these blocks on this surface; empty when valid. */
export function validateBlocks(blocks: unknown, surface: Surface): string[] {
  const problems = new Problems();
  if (!Array.isArray(blocks)) {
    problems.add('blocks', 'must be an array');
    return problems.list;
  }
  if (blocks.length > MAX_BLOCKS[surface]) {
    problems.add('blocks', `must be at most ${MAX_BLOCKS[surface]} blocks in a ${surface}`);
  }
  const ids: Ids = { blocks: new Set(), actions: new Set() };
  for (const [i, item] of blocks.entries()) block(problems, `blocks[${i}]`, item, ids, surface);
  return problems.list;
}

/** The problems Slack would list for a view (views.open/update/push/publish). */
export function validateView(view: unknown): string[] {
  const problems = new Problems();
  if (!isObject(view)) {
    problems.add('view', 'must be an object');
    return problems.list;
  }
  if (view.type !== 'modal' && view.type !== 'home') {
    problems.add('view.type', 'must be modal or home');
    return problems.list;
  }
  // docs.slack.dev/reference/views/modal-views: title, submit and close plain_text ≤ 24;
  // callback_id ≤ 255; private_metadata ≤ 3000; submit required with input blocks.
  if (view.type === 'modal') {
    text(problems, 'view.title', view.title, 24, { plainOnly: true });
    text(problems, 'view.submit', view.submit, 24, { plainOnly: true, required: false });
    text(problems, 'view.close', view.close, 24, { plainOnly: true, required: false });
    const hasInput =
      Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
    if (hasInput && view.submit === undefined)
      problems.add('view.submit', 'is required with input blocks');
  }
  string(problems, 'view.callback_id', view.callback_id, 255);
  string(problems, 'view.external_id', view.external_id, 255);
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000) {
    problems.add('view.private_metadata', 'must be at most 3000 characters');
  }
  problems.list.push(...validateBlocks(view.blocks, view.type === 'home' ? 'home' : 'modal'));
  return problems.list;
}

/** Options for an external select: at most 100 (or 100 groups). */
export function validateOptions(response: unknown): string[] {
  const problems = new Problems();
  if (!isObject(response)) {
    problems.add('response', 'must be an object');
    return problems.list;
  }
  if (response.option_groups !== undefined) {
    optionGroups(problems, 'option_groups', response.option_groups);
  } else {
    options(problems, 'options', response.options, 100, 0);
  }
  return problems.list;
}
