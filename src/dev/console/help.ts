// The console's /help text: its own commands, and how to answer a modal.
export const CONSOLE_HELP = [
  'Console commands',
  '  /cdn …           run the bot, as in Slack (try /cdn help)',
  '  1, 2, …          press the button with that number',
  '  /as <name>       act as someone else: alice (admin), bob, carol',
  '  /home            open the App Home tab',
  '  /say <text>      post a message in #ops as yourself',
  '  /shortcut        run "Purge URLs in this message" on your last /say',
  "  /traffic <zone> spike|drop|hitrate [minutes]   shape the sandbox zone's traffic (from",
  '                   a minute ago); a watched zone alerts within a minute',
  '  /traffic <zone> live|delete   move a pending zone to active (or delete it)',
  '  /cancel          close the open modal',
  '  /help            this list',
  '  /quit            leave (Ctrl-D works too)',
  'In a modal, answer each field in turn: Enter keeps the default (or skips an optional field);',
  'a list takes a number or a name. #ops and @bob are written as in Slack.',
].join('\n');
