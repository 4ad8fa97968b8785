//! `user-pushback`: the person corrects the assistant or reports that its work did not
//! work ("still failing", "you broke X", "no, the directory is …", a traceback pasted
//! right after the assistant said it was done).
//!
//! How it reads a turn:
//! - Only the person's own turns count ([`Message::is_typed_user`], not sidechain):
//!   tool results, harness injections and subagent prompts are not the person.
//! - The person's own words are what they typed (without the context an IDE wraps
//!   around it: [`typed`]), as prose (no fenced code, no `> quotes`) minus
//!   the lines that look pasted (tracebacks, compiler and CI output, shell prompts); of
//!   those, the first few sentences (a long pasted spec is not a reply).
//! - What it answers is the assistant's last message with text before the turn; a
//!   success claim ("Done", "I've fixed …", "should now work", "all tests pass") is
//!   looked for in the assistant's messages since the person's previous turn; files
//!   edited in that turn, with words after the last edit, hand the change back as a
//!   claim does, whatever those words are ([`handed_back`]).
//! - Seven kinds of pushback, each with its own bar (the doc below and
//!   `docs/detectors.md`): a challenged refusal, a failure report or correction, a
//!   pasted error or a symptom right after a success claim, a plain "no, …", a location
//!   given after "X doesn't exist", a redirect right after an interrupt.

use std::sync::LazyLock;

use regex::Regex;

use super::{Cited, Details, Detector, Finding, SessionView, Undoing};
use crate::analysis::calls::edits;
use crate::analysis::claims::{Kind as Claim, first_of};
use crate::analysis::fences::{self, Place};
use crate::analysis::statements::{clause_before, opens_conceding, prose, sentence_quote, sentences};
use crate::analysis::text::{content_words, either_script, quote, sentences as lead_sentences, typed, without_ansi};
use crate::model::{Message, Origin, Role};

pub struct UserPushback;

/// How far back (messages) the assistant message a turn answers is looked for.
const ANSWER_WINDOW: usize = 60;
/// How far back an assistant refusal may be for a turn that challenges it.
const REFUSAL_WINDOW: usize = 12;
/// Sentences of the person's own words that are read: the reply is at the start.
const HEAD_SENTENCES: usize = 6;
/// Characters of the person's own words that are read.
const HEAD_CHARS: usize = 700;
/// Sentences of a turn after an interrupt in which the redirect is looked for.
const REDIRECT_SENTENCES: usize = 2;

const DOC: &str = r###"## What it finds

A turn of the person that pushes back on the assistant's work — the places where a
person had to step in:

- a failure report: "it doesn't work", "still failing", "CI is still red", "the window
  opens then closes", "I never saw the GUI open", "I don't see the new fields", "you
  broke something", "you forgot the tests", "that's wrong", "wrong directory", "same
  error", and the same in other languages ("toujours pas", "funktioniert nicht",
  "no funciona", "还是不行", "動かない", …), and without a failure word: "还是错", "改了又错其他的",
  "我也没看到 F12", "卻沒顯示出來", "点了不会跳到", "你没有检查？", "why is it still empty?",
  "clicking save does nothing", "isn't consistent with what we show above", "and did you
  consider that …?";
- a pasted error right after a success claim: the turn is mostly a traceback, compiler
  errors or CI output, and the assistant's last word was "Done", "fixed", "should now
  work", "all tests pass" — or "fix:" over a pasted terminal run of it, error line or not.
  Or an error naming an operand of a command the assistant gave to run ("Use: `cargo
  build --manifest-path a/Cargo.toml`" → "error: manifest path `a/Cargo.toml` does not
  exist"): the prescribed command failed.
  A turn that edited files and then said anything ("Rebuilt the grid …", "Agreed, and
  enforced.") handed the change back just as well;
- the reply of the program the assistant set up, pasted: it declines what it was set up
  to do ("I'm unable to reach the internet from this environment … If you'd like, I can
  help craft a request …" after "Then prompt the agent to run a Google search");
- a symptom after a success claim: "a badge that says failing", "fix these errors",
  "when I run it I get 2 warnings", "the display is all scrunched up";
- what the claimed change was to remove, seen still there: "I still see ellipsis" after
  "ellipses are gone", "the banner is still there";
- a contradiction the assistant concedes at once: "Node 18 is no longer supported" →
  "You're absolutely right! …";
- the work called done sent back as unfinished: "complete the commit" after "the
  reports are created and staged … you can complete the commit", "ensure that your
  pending tasks are complete" after "I've completed issue #1";
- a plain "no, …" correction ("no, set the working dir to …") when the assistant had
  not asked a question, and "NO, don't do that", "Don't edit the README.md" or "remove
  the agent from the README" right after it changed that file (unless the person's
  previous turn asked to put something in it);
- a challenge to a refusal: "why won't you run it?", "you have permission to run the
  commands", "I'm confident you can restart yourself";
- a location given after the assistant concluded something was not there ("M-Claude is
  in the Documents folder" after "the directory doesn't exist locally");
- a redirect right after the person interrupted the assistant or denied its call
  ("python3 should point to python 3.11", "Please stop grouping build & commit");
- after work handed back: a rule in a few words ("never mask, always fix"), what the work
  was meant to be ("all reviews are intended as FULL system reviews"), or the result
  pasted with how it should look ("So this: … Should show the markers next to each
  agent").

The key message is the person's turn. The evidence is the assistant message it
answers: the one holding the success claim or the refusal, else the assistant's last
message with text before the turn.

## Why it matters

Each pushback is a moment where the agent's own checks failed and a person had to
notice: a claim of success that did not hold, a wrong assumption, a refusal that
should not have been. Their count says how much supervision a session needed; the
claims they answer are where a write-up should look for what the agent did not verify.

## Example

```text
[msg 80] assistant: ci: set QT_QPA_PLATFORM globally and drop 3.13 for now.
                    This should address the failing badge.
[msg 81] user: Nope, the CI badge is still failing. Please check the workflows …
```

`[msg 81]` is the finding; `[msg 80]` is its evidence.

## Not an instance

- A new request, even one that starts with "no" in another sense ("No, let's add the
  docs link instead" after the assistant offered something, "no need to …"), and "no,
  don't …" declining an offer when nothing was changed.
- "You have access" when nothing was refused or handed back ("No, just you have access
  is great" after "Want me to open the file?").
- After an interrupt, a pasted finding with an instruction further down: the redirect is
  said at once.
- An answer to the assistant's question, or a clarification it asked for ("the repo is
  at ~/Documents/M-Claude" after "where is the repository?").
- Approval and nudges: "yes", "continue", "looks good"; taking the assistant's offer
  with the error to fix ("Shall I fix it now?" → "yes, as you planned" over the error).
- The next item of a list: "Next, the PDF export doesn't work yet" when the assistant's
  message never spoke of it; a rule that answers a choice put to the person ("Which
  would you like: 1. … 2. …" → "never commit without signing"); a checklist copied from
  the assistant's message.
- A next step after a success claim: "complete the docs page too" when the claim never
  spoke of docs, "finish the migration" when nothing was called done.
- Output the assistant asked for whatever happens, pasted without disagreeing ("run it
  and paste the traceback" → a traceback), and errors pasted when the assistant had
  claimed nothing. Output asked for only "if it still fails" is different: its paste
  says the work failed, and is found.
- Questions ("is it still running?", "does it support X?"), conditionals ("if it still
  fails, revert"), and words quoted from the assistant or inside code blocks; "I still
  see the point of …" (an opinion); a fact added that the assistant agrees with ("the
  files come in Chinese and English" → "You're right! …").
- Text the harness put in a user record (reminders, tool results, command echoes) and
  a subagent's prompt; a slash command's expanded template; the context an IDE puts
  above what the person typed (the Codex extension's "## My request for Codex:").
"###;

/// Hedges that make a cue conditional or a wish rather than a report.
static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)\b(?:if|unless|whether|in\s+case|make\s+sure|ensure|so\s+that|to\s+avoid|prevent|without|otherwise|don['’]?t\s+want|shouldn['’]?t|should\s+not|wenn\s+nicht|falls|si\s+(?:ça|ca)|si\s+no)\b|如果|假如|要是|除非|以免|避免|确保|希望|还是要|需要",
    ))
    .expect("hedge regex is valid")
});

/// Words that open a question (a sentence that asks is not a report, unless its cue is
/// an obvious complaint).
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:ok|okay|so|and|but|also|hmm|wait|hey)[,\s]+)*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|what|why|how|when|where|which|who|whose|any|est-ce|ist|sind|hat|kann|gibt|es|están?|qué|por\s*qué)\b",
    )
    .expect("asks regex is valid")
});

/// A question that presupposes the failure it asks about ("why is it still failing?",
/// "为什么还是有错？"): a report, not a neutral question.
static WHY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)^(?:(?:ok|okay|so|and|but|hmm|wait|hey)[,\s]+)*(?:why|how\s+come)\b|^(?:为什么|为何|怎么)",
    ))
    .expect("why regex is valid")
});

/// A question that points at what the work left out ("And did you consider that Core
/// needs its own chat view?"): it reports the omission.
static OMITTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:ok|okay|so|and|but|also)[,\s]+)*did\s+you\s+(?:even\s+|actually\s+|really\s+)?(?:consider|think\s+(?:about|of)|account\s+for|take\s+into\s+account)\b",
    )
    .expect("omitted regex is valid")
});

/// A turn moving on to the next item ("Next, …", "接下来 …"): a failure it names is the
/// next task unless it speaks of what the assistant's message did.
static NEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(r"(?i)^(?:(?:next|moving\s+on|now\s+for)\b|接下来|下一步|再来)"))
        .expect("next regex is valid")
});

/// Failure reports and corrections strong enough to stand alone after any work of the
/// assistant.
static STRONG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(concat!(
        r"(?i)\bstill\s+(?:\w+\s+){0,3}?(?:fail\w*|broken|break\w*|crash\w*|erroring|errors?\b|not\b|n['’]?t\b|doesn['’]?t|does\s+not|isn['’]?t|won['’]?t|can['’]?t|cannot|no\b|missing|the\s+same\b|same\s+(?:error|problem|issue)|getting\s+(?:an?\s+|the\s+)?(?:error|failure|warning)|seeing\s+(?:an?\s+|the\s+)?(?:error|failure|warning)|red\b|exits?\b|closes?\b|empty\b|blank\b|wrong\b|there\b)",
        r"|\b(?:doesn['’]?t|does\s+not|didn['’]?t|did\s+not|isn['’]?t|is\s+not|aren['’]?t|are\s+not|wasn['’]?t|won['’]?t|wont|can['’]?t|cannot|never)\s+(?:seem\s+to\s+|really\s+|actually\s+|even\s+|always\s+)?(?:work|working|worked|run|running|start|starting|load|loading|launch|launching|compile|compiling|build|building|show\s+up|showing\s+up|appear|appearing|display|displaying|render|rendering|respond|responding|connect|connecting|pass|passing)\b",
        r"|\bnot\s+(?:working|running|loading|launching|compiling|building|appearing|displaying|rendering|responding|connecting|passing|showing\s+up)\b",
        r"|\b(?:doesn['’]?t|does\s+not|didn['’]?t|did\s+not)\s+(?:\w+\s+)?(?:fix|solve|resolve|help|change)\s+(?:it|this|that|anything|the|a\s+thing)\b",
        r"|\bstopped\s+working\b|\b(?:it|this|that)\s+(?:is|was|['’]s)\s+(?:still\s+|now\s+)?broken\b",
        r"|\bnow\s+(?:it\s+)?(?:fails|crashes|errors|breaks|throws)\b",
        r"|\bkeeps?\s+(?:on\s+)?(?:saying|failing|crashing|erroring|throwing|returning|showing|giving\s+(?:me\s+)?(?:an?\s+|the\s+)?(?:error|same)|timing\s+out|hanging|refusing|complaining|asking\s+for)\b",
        r"|\byou\s+(?:just\s+|have\s+|['’]ve\s+)?(?:broke|broken|messed\s+up|screwed\s+up|forgot|forgotten|missed|skipped|ignored|misunderstood|misread|overwrote|overwritten)\b",
        r"|\bbroke\s+(?:it|something|the|my|everything|this|that)\b",
        r"|\byou\s+(?:did\s*n['’]?t|did\s+not|have\s*n['’]?t|have\s+not|never|are\s*n['’]?t|are\s+not|were\s*n['’]?t|were\s+not)\s+(?:even\s+|actually\s+|really\s+)?(?:\w+ing|\w+ed|run|do|test|add|fix|read|see|check|use|make|write|follow|install|commit|push|update|answer|understand|listen|open|look|start|finish|complete)\b",
        r"|\b(?:that['’]?s|that\s+is|this\s+is|it['’]?s|it\s+is)\s+(?:still\s+|all\s+|just\s+|completely\s+|totally\s+|simply\s+)?(?:wrong|incorrect|not\s+(?:right|correct|it\b|what\s+I|true|the\s+case|how|working))",
        r"|\b(?:wrong|incorrect)\s+(?:file|directory|dir|folder|path|branch|repo|repository|version|port|name|one|place|answer|command|account|project|value|key|location|drive)\b",
        r"|\bnot\s+what\s+I\s+(?:asked|wanted|meant|said)\b|\bI\s+(?:never|did\s*n['’]?t|did\s+not)\s+(?:ask|asked|say|said|want|wanted|tell|told)\b",
        r"|\bsame\s+(?:error|problem|issue|failure|exception|warning|crash|mistake)s?\b",
        // A habit called out: "why do you keep breaking …", "you always forget …".
        r"|\b(?:why\s+do\s+you|you)\s+(?:keep|always|often)\s+(?:on\s+)?(?:\w+ing|forget|break|ignore|skip|miss|add|remove|change|get|make|use|put|write)\b",
        // Clicking does nothing: "clicking the link does nothing".
        r"|\b(?:click(?:ing|ed)?|press(?:ing|ed)?|tap(?:ping|ped)?)\b[^.!?]{0,60}?\b(?:does|did)\s+nothing\b",
        r"|\b(?:exits?|exited|closes?|closed|crash(?:es|ed)?|dies|died|quits?|hangs?|hung|freezes?|froze|disappears?|disappeared|vanish(?:es|ed)?)\s+(?:immediately|instantly|right\s+away|straight\s+away|quickly|again)\b",
        r"|\bopens?\s+(?:and\s+|then\s+)+(?:immediately\s+|quickly\s+)?closes?\b",
        r"|\bnothing\s+(?:happens|happened|changed|changes|shows|showed|appears|appeared|works|worked)\b",
        r"|\bI\s+(?:still\s+)?(?:don['’]?t|do\s+not|didn['’]?t|did\s+not|can['’]?t|cannot|can\s+not|never)\s+see\s+(?:the|any|it|them|my|a|an|your|anything|those|these)\b",
        r"|\b(?:never|did\s*n['’]?t|did\s+not)\s+(?:saw|see|opened|appeared|showed)\b",
        r"|\bI\s+(?:ran|tried|opened|launched|clicked|started|tested|used|installed|restarted)\b[^.!?]{0,80}?[,;:]?\s+(?:but\s+)?(?:it['’]?s|its|it\s+is|they['’]?re|they\s+are|it|they)\s+(?:still\s+)?(?:not|n['’]?t|doesn['’]?t|don['’]?t|didn['’]?t|won['’]?t|just|only)\b",
        r"|\byou\s+(?:generated|wrote|said|told\s+me|created|made|claimed|promised|added|set|changed|updated)\b[^.!?]{0,60}?\bbut\b",
        r"|\bthat['’]?s\s+why\b[^.!?]{0,60}?\b(?:conflict|fail\w*|error\w*|broken|crash\w*|problem|issue|wrong)",
        r"|\bI\s+(?:meant|intended)\b|\bdid\s+you\s+(?:even\s+|actually\s+|really\s+)?(?:consider|think\s+(?:about|of)|account\s+for|take\s+into\s+account)\b",
        r"|\bfix\s+your\b|\byou\s+should\s+(?:know|have\s+known)\b|\bI\s+(?:already\s+)?told\s+you\b|\bas\s+I\s+(?:already\s+)?(?:said|told\s+you)\b",
        // French.
        r"|\b(?:toujours|tjrs|tjs)\s+pas\b|\bne\s+(?:\w+\s+)?(?:marche|fonctionne|s['’]affiche|démarre|compile|charge)\s+(?:toujours\s+|tjrs\s+|plus\s+)?pas\b",
        r"|\bn['’](?:appara[iî]t|appara[iî]ssent|affiche)\s+(?:\w+\s+)?pas\b|\bça\s+(?:ne\s+)?marche\s+pas\b|\bc['’]est\s+(?:faux|pas\s+(?:ça|bon|ce\s+que))",
        r"|\btu\s+as\s+(?:cassé|oublié)\b|\bmême\s+erreur\b",
        // Spanish and Portuguese.
        r"|\bno\s+(?:funciona|sirve|anda|aparece|compila|arranca)\b|\bsigue\s+(?:sin|fallando|dando|igual|roto)\b|\btodav[ií]a\s+no\b",
        r"|\best[aá]\s+mal\b|\brompiste\b|\bn[ãa]o\s+(?:funciona|aparece|compila)\b|\bainda\s+n[ãa]o\b|\bcontinua\s+(?:dando|com)\s+erro\b",
        // German.
        r"|\b(?:funktioniert|geht|klappt|läuft|startet|kompiliert)\s+(?:immer\s+noch\s+|noch\s+immer\s+|noch\s+|jetzt\s+|leider\s+)?nicht\b",
        r"|\b(?:immer|noch)\s+noch\s+(?:nicht|der\s+gleiche|dieselbe|derselbe|ein\s+fehler|fehler|kaputt)\b|\bdas\s+ist\s+(?:falsch|nicht\s+richtig)\b|\bstimmt\s+(?:so\s+)?nicht\b",
        r"|\b(?:erscheint|angezeigt)\s+(?:\w+\s+)?nicht\b|\bkaputt\s*gemacht\b",
        // Italian, Russian.
        r"|\bnon\s+funziona\b|\bancora\s+non\b|\bè\s+sbagliato\b|не\s+работает|всё\s+ещё|все\s+ещё|неправильно|не\s+то\b",
        // Chinese, Japanese, Korean.
        r"|还是(?:不行|不能|没有|没|不|报错|出错|失败|一样|有问题|有错)|仍然(?:不|没|报错|失败|有|错|空)|依然(?:不|没|报错|失败|错|空)|不行|没用|不对|错了|没有(?:生效|效果|反应|变化)|不起作用|跑不起来|运行不了|打不开|没反应|并没有",
        // "still wrong", "still empty" (not the 还是 of "right or wrong": 对的还是错的);
        // "wrong again"; "the same mistake".
        r"|(?:^|[^的])还是(?:错|空)|又(?:错|出错|报错|坏|失败|不行|有错)|(?:同样|一样|相同)的(?:错|问题)",
        // "I don't see it", "can't find it"; "yet it doesn't show"; "clicking does nothing".
        r"|我(?:也|还是|都|仍然|依然|还)?(?:没|没有)(?:看到|看见|找到)|看不到|找不到|却(?:没|没有|不)(?:有)?(?:显示|出现|反应|变化|生效|作用|跳)|(?:没|没有)(?:显示|出现)出来|显示不出来",
        // Garbled text after "but", or text that turned garbled.
        r"|(?:但是|但|可是|却|变成?|还是|又)[^。！？\n]{0,30}?乱码",
        r"|点(?:了|击了?)?[^。！？\n，,]{0,20}?(?:不会|没有?|不能|无法)(?:跳|显示|出现|反应|动|打开|加载|响应)",
        // "you didn't check?", "why do you always …", "you changed X and now Y is garbled".
        r"|你(?:根本|都|也|就|并)?(?:没有|没)(?:有)?(?:检查|测试|试|运行|跑|确认|验证|看|读)|为什么你?(?:常常|总是|老是|一直|每次|又)",
        r"|你(?:改|动|修改|更改)(?:了|到)[^。！？\n]{0,30}?(?:然后|之后|以后|后|就|又|结果|现在)[^。！？\n]{0,30}?(?:乱码|错|坏|不行|没反应|失败|不能|不见|消失)",
        r"|動かない|動きません|うまくいか|違います|直って(?:い)?ない|表示されない|表示されません|まだエラー|起動しない|失敗します",
        r"|안\s?돼|작동하지\s*않|여전히|아직도",
    )))
    .expect("strong regex is valid")
});

/// What the work was meant to be, restated after it was handed back: "all reviews are
/// intended as FULL system reviews", "it was supposed to stay on the left".
static INTENDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:is|are|was|were)\s+(?:all\s+|always\s+)?(?:intended|meant|supposed)\s+(?:as|to)\b")
        .expect("intended regex is valid")
});

/// A rule laid down in a few words right after work handed back ("never mask, always
/// fix"): it says the work broke it.
static RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:please\s+)?(?:never|always|alway|don['’]?t\s+ever)\s+(\w+)").expect("rule regex is valid")
});

/// How the result should look, said under a paste of how it looks ("So this: … Should
/// show the markers next to the corresponding agent"). "also"/"too" extend the request.
static SHOULD_BE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:it|this|that|they|these|there|the\s+\w+)\s+)?should(?:\s+(?:be|show|have|display|say|list|read|go|appear|look|use|stay|point|open|sit|come)\b|n['’]?t\b)",
    )
    .expect("should-be regex is valid")
});
static EXTENDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:also|too|as\s+well|additionally)\b").expect("extends regex is valid"));

/// The person tells the assistant to finish what it had just called done: "complete the
/// commit" (the word must name something the claim's sentence spoke of, not the next
/// steps it offered), "ensure that your pending tasks are complete".
static UNFINISHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:(?:please|pls|now|ok|okay|so|but|and)[,\s]+)*(?:complete|finish)\s+(?:the|this|that|your)\s+(?P<what>\w+)",
        r"|^(?:(?:please|pls|now|ok|okay|so|but|and)[,\s]+)*(?:ensure|make\s+sure|check)\s+(?:that\s+)?(?:all\s+(?:of\s+)?)?your\s+(?:\w+\s+){0,3}?(?:is|are)\s+(?:all\s+|actually\s+|really\s+|fully\s+)?(?:complete|completed|done|finished)\b",
    ))
    .expect("unfinished regex is valid")
});

/// A plain "no" that opens a correction.
static NO_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)^\s*(?:no|nope|nah|wrong|incorrect|not\s+quite|non|nein|nee|不对|不是|错了|いいえ|違う|ちがう)\s*[,.!:;—–-]+\s*(\S.*)$",
    ))
    .expect("no-start regex is valid")
});

/// What follows a "no" that declines rather than corrects.
static NO_DECLINES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:thanks|thank|need|worries|problem|rush|hurry|more|further|other|changes|not\s+now|later|that['’]?s\s+(?:all|fine|it|ok)|it['’]?s\s+fine|i['’]?m\s+good|just|keep|leave|let['’]?s|lets|we\s+don['’]?t|don['’]?t|do\s+not|skip|go\s+ahead|continue|proceed|stop|i\s+(?:don['’]?t|do\s+not)\s+(?:want|need))\b",
    )
    .expect("no-declines regex is valid")
});

/// What follows a "no" that forbids doing something ("NO, don't do that"): right after
/// the assistant changed files it rejects the change, not an offer.
static NO_UNDO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:don['’]?t|do\s+not|never)\s+(?:do|add|use|change|touch|edit|make|write|put|create|remove|delete|mask|hide|fake|hard-?code|modify|revert|replace)\w*\b",
    )
    .expect("no-undo regex is valid")
});

/// Symptoms that count only right after the assistant claimed success.
static WEAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(concat!(
        r"(?i)\b(?:fails?|failed|failing|failures?|errors?|exceptions?|traceback|warnings?|crash(?:es|ed)?|broken|missing|blank|oversight|duplicated|incorrect|wrong)\b",
        r"|\bfix\s+(?:these|those|this|the\s+following|the|all\s+(?:the\s+|these\s+)?|remaining)\s*(?:\d+\s+)?(?:issues?|errors?|problems?|bugs?|failures?|warnings?|tests?)\b",
        r"|\b(?:fehler|warnung|fehlschl|schlägt\s+fehl)\w*|\b(?:erreur|échoue|plante)\w*|\b(?:falla|fallo|errores)\b",
        // What the change did to the display or the output, said of it: "the header is
        // truncated", "it is all scrunched up", "why would a timezone fix mess things
        // up?" (not "the ellipses for truncated events": a name for what is asked about).
        r"|\b(?:is|are|was|were|looks?|looked|got|gets|became|becomes|been|['’]s|['’]re)\s+(?:\w+\s+)?(?:truncated|cut\s+off|scrunched|squished|squashed|overlapping|misaligned|garbled|distorted|mangled)\b|\bmess(?:es|ed)?\s+(?:\w+\s+){0,2}?up\b",
        r"|\binconsistent\b|\b(?:isn['’]?t|aren['’]?t|is\s+not|are\s+not|not)\s+consistent\b|\b(?:doesn['’]?t|don['’]?t|does\s+not|do\s+not)\s+match\b",
        r"|报错|出错|失败|错误|警告|エラー|失敗|警告",
    )))
    .expect("weak regex is valid")
});

/// What the claimed change was to remove or fix, observed to persist: "I still see
/// ellipsis" after "ellipses are gone", "the banner is still there", "it still shows the
/// old title". No failure word is needed: the claim just before says it should be gone.
static PERSISTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bI\s+(?:can\s+|do\s+)?still\s+(?:see|get|notice|hear|find|am\s+(?:seeing|getting))\s+",
        r"|\bI['’]?m\s+still\s+(?:seeing|getting|noticing)\s+",
        r"|\b(?:is|are|was|were|['’]s|['’]re)\s+still\s+(?:there|here|visible|shown|showing|present|displayed|displaying|appearing|happening|occurring|on\s+(?:the\s+)?screen)\b",
        r"|\bstill\s+(?:shows?|appears?|happens|occurs|displays?)\b",
    ))
    .expect("persists regex is valid")
});

/// What follows "I still see" when it is an opinion, not an observation: "I still see
/// the point of it", "I still see no reason to".
static SEES_OPINION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:the\s+|a\s+|no\s+|any\s+|some\s+|much\s+)?(?:point|need|reason|benefit|value|use|merit|sense|why|how|what|whether|it\s+as|this\s+as|that\s+as)\b")
        .expect("sees-opinion regex is valid")
});

/// A negation: the person says something is not so ("Node 18 is no longer supported",
/// "that does not seem to be thorough"). With the assistant conceding right after, the
/// turn contradicted it; a turn that only adds a fact ("中文會有繁體 簡體 還會有英文") does not.
static NEGATES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)\b(?:not|no|never|nothing|none|nor|nicht|kein\w*|pas|jamais|nunca|nada|não|non|нет|не)\b|n['’]t\b|不|没|沒|别|別|并非|並非|ない|ません",
    ))
    .expect("negates regex is valid")
});

/// New-request openings: a symptom word inside one is the thing to build, not a report.
static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:ok|okay|great|good|thanks|now|also|then|next|please|pls|and)[,\s]+)*(?:add|create|implement|write|build|make|let['’]?s|lets|update|change|rename|remove|delete|install|set\s+up|setup|use|move|handle|log|catch|show|display|document|explain|describe|generate|support|research|review|(?:can|could|would)\s+you)\b",
    )
    .expect("request regex is valid")
});

/// An approval opening a turn: what follows is the next request.
static APPROVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)^(?:(?:yes|yeah|yep|yup|sure|great|perfect|thanks|thank\s+you|good|nice|awesome|excellent|cool|looks\s+good|lgtm|ja|oui|sí|si)\b|好的|好啊|可以|是的|那就|就按|はい)",
    ))
    .expect("approval regex is valid")
});

/// The assistant concludes that something is not there.
static ABSENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:doesn['’]?t|does\s+not|didn['’]?t|did\s+not)\s+exist\b|\b(?:couldn['’]?t|could\s+not|can['’]?t|cannot|unable\s+to)\s+(?:find|locate)\b|\bnot\s+found\b|\bno\s+such\s+(?:file|directory|folder)\b|\b(?:is|are)(?:n['’]t|\s+not)\s+installed\b",
    )
    .expect("absent regex is valid")
});

/// The person says where the thing is.
static LOCATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:is|are|lives?|exists?|sits?)\s+(?:located\s+|stored\s+|already\s+|actually\s+)?(?:in|at|under|inside)\b|\bit['’]?s\s+(?:in|at|under)\b|\b(?:is|are)\s+(?:already\s+)?installed\b",
    )
    .expect("located regex is valid")
});

/// The assistant asks where something is (the answer is then a clarification).
static ASKS_WHERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bwhere\s+(?:is|are|do|does|did|can|should)\b|\bwhich\s+(?:directory|folder|path|repo|repository|drive|location)\b|\b(?:provide|tell\s+me|share|give\s+me|confirm)\s+(?:me\s+)?(?:the\s+|its\s+|their\s+)?(?:full\s+|correct\s+|exact\s+)?(?:path|location|url|directory|folder)\b",
    )
    .expect("asks-where regex is valid")
});

/// How it should be done instead, said right after stopping the assistant.
static REDIRECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)\b(?:should|shouldn['’]?t|need\s+to|needs\s+to|must|instead|rather\s+than|don['’]?t|do\s+not|before|stop\s+\w+ing|sollte|sollst|muss|musst|stattdessen|devrait|devrais|il\s+faut|au\s+lieu|debería|deberías|en\s+lugar|hay\s+que)\b|应该|不要|别再|需要|べき|ではなく",
    ))
    .expect("redirect regex is valid")
});

/// A challenge to the assistant's refusal or claim that it cannot.
static CHALLENGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bwhy\s+(?:won['’]?t|wont|wouldn['’]?t|can['’]?t|cant|couldn['’]?t|didn['’]?t|didnt)\s+you\b",
        r"|\byou\s+(?:do\s+)?have\s+(?:the\s+|full\s+|my\s+)?(?:permission|permissions|access|rights)\b",
        r"|\b(?:I['’]?m|Im|I\s+am)\s+(?:confident|sure|certain)\s+(?:that\s+)?you\s+(?:can|could|are\s+able)\b",
        r"|\byou\s+(?:can|could|should\s+be\s+able\s+to)\s+(?:\w+\s+){0,6}?(?:yourself|on\s+your\s+own)\b",
        r"|\b(?:do|run|try)\s+it\s+yourself\b|\byes,?\s+you\s+can\b",
    ))
    .expect("challenge regex is valid")
});

/// The assistant says it cannot or will not do something, or hands it back.
static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bI\s+(?:can['’]?t|cannot|can\s+not|won['’]?t|will\s+not|am\s+unable|['’]m\s+unable|am\s+not\s+able|['’]m\s+not\s+able|don['’]?t\s+have\s+(?:the\s+)?(?:ability|access|permission)|do\s+not\s+have\s+(?:the\s+)?(?:ability|access|permission)|am\s+(?:currently\s+)?restricted|['’]m\s+(?:currently\s+)?restricted)\b|\bunable\s+to\b|\bnot\s+(?:able|allowed|permitted)\s+to\b|\byou\s+(?:will\s+|['’]ll\s+)?need\s+to\s+(?:run|execute|do|restart|quit|change\s+to|navigate|switch\s+to|open|commit)\b|\byou\s+(?:will\s+|['’]ll\s+)?need\s+to\s*:",
    )
    .expect("refusal regex is valid")
});

/// The assistant reports its work done or working.
static CLAIM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(concat!(
        r"(?i)\b(?:I|we)\s*(?:['’]ve|\s+have)\s+(?:now\s+|also\s+|just\s+|successfully\s+|finally\s+)?(?:\w+ly\s+)?(?:added|fixed|updated|implemented|created|changed|resolved|addressed|made|set|installed|configured|removed|moved|wired|written|rewritten|refactored|enabled|disabled|cleaned|traced|chased|pushed|committed|completed|finished|built|generated|integrated|applied|replaced|corrected|restored|started|launched|deployed|verified|tested|ensured)\b",
        r"|^(?:I|we)\s+(?:\w+ly\s+)?(?:fixed|updated|changed|switched|replaced|patched|rewrote|corrected|adjusted|moved|added|removed)\s+(?:the|your|it|this|that|its|their|to|a|an)\b",
        // Handed back to be tried: "Build again with: …", "Rebuild and run", "Retry your run".
        r"|^(?:re-?build|build|re-?run|run|try|retry)\s+(?:it\s+|this\s+|that\s+)?again\b|^(?:rebuild|retry)\s+(?:with|and|your)\b",
        r"|^(?:all\s+)?(?:done|fixed|added|updated|implemented|created|changed|resolved|installed|configured|removed|moved|renamed|committed|pushed|completed|enabled|disabled|wired|integrated|cleaned|replaced|rewrote|built|generated|finished|perfect|success)\b",
        r"|\b(?:is|are|has\s+been|have\s+been|was|were)\s+(?:now\s+|all\s+|fully\s+|successfully\s+)*(?:\w+ly\s+)?(?:fixed|resolved|installed|configured|set\s+up|enabled|ready|complete|completed|done|working|active|running|live|updated|created|added|implemented|in\s+place|green|passing|clean|production-ready|available|addressed|wired|integrated)\b",
        r"|\bnow\s+(?:works?|passes|pass|runs?|shows?|opens?|loads?|starts?|builds?|compiles?|has|have|uses?|points?|displays?|supports?|includes?|handles?|production-ready|ready|green|fixed)\b",
        r"|\bshould\s+(?:now\s+)?(?:work|fix|address|resolve|keep|flip|succeed|pass|be\s+(?:fixed|green|resolved|working|gone|good|fine|ready))\b",
        r"|\b(?:all|\d+)\s+(?:\w+\s+)?(?:tests?\s+)?pass(?:ed|ing|es)?\b|\bsuccessfully\b|\byou\s+can\s+now\b|✅|🎉",
        r"|\b(?:habe|haben|hab)\b[^.!?]{0,80}\b(?:erstellt|angepasst|behoben|hinzugefügt|aktualisiert|geändert|korrigiert|ergänzt|eingetragen|umgestellt)\b|\b(?:erledigt|behoben)\b|\bist\s+(?:jetzt|nun)\b",
        r"|\bj['’]ai\s+(?:\w+\s+)?(?:ajouté|corrigé|mis\s+à\s+jour|créé|modifié|ajusté|configuré|installé)\b|\bc['’]est\s+(?:fait|corrigé|réglé)\b|\b(?:est|sont)\s+(?:maintenant|désormais)\b",
        r"|\b(?:he|hemos)\s+(?:añadido|agregado|corregido|actualizado|creado|cambiado|arreglado|implementado)\b|\bya\s+(?:está|funciona)\b",
        r"|已(?:经)?(?:完成|修复|添加|更新|实现|创建|修改|解决|改为|调整|支持|补充|移除|删除|统一|重写|改写|修正|更正|替换|重构|优化|加入|改好|改成|推送|提交|成功)|(?:完成|搞定)了|现在(?:可以|已经)",
        r"|しました|完了|できました",
    )))
    .expect("claim regex is valid")
});

/// Openings of a claim that plans or offers rather than reports.
static CLAIM_HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        &either_script(r"(?i)\b(?:if|whether|unless|in\s+case|once|would\s+you|want\s+me|do\s+you\s+want|shall\s+I|should\s+I|let\s+me|I['’]ll|I\s+will|I\s+can|going\s+to|wenn|falls|si)\b|如果|假如|若|要是|是否|让我|需要我|要不要|我(?:会|将|可以|来|要)"),
    )
    .expect("claim-hedge regex is valid")
});

/// The assistant asks for output to be pasted or reported back.
static ASKED_OUTPUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(concat!(
        r"(?i)\b(?:paste|share|send|post|show\s+me|copy|give\s+me|provide)\b[^.?!\n]{0,60}\b(?:output|errors?|traceback|logs?|results?|messages?|warnings?|stack|what\s+(?:you|it))\b",
        r"|\b(?:let\s+me\s+know|tell\s+me)\s+(?:what|whether|if|how)\b[^.?!\n]{0,40}\b(?:see|prints?|shows?|says?|happens|output|works?|goes)\b",
        r"|\b(?:poste|schick|zeig)\w*\b[^.?!\n]{0,60}\b(?:Ausgabe|Warnung|Fehler|Log)\w*",
        r"|\b(?:colle|envoie|partage)\w*\b[^.?!\n]{0,60}\b(?:sortie|erreur|log)\w*",
        // 发 as a verb, not the 发 of 开发 ("开发者工具", the developer tools).
        r"|(?:^|[^开])(?:贴|发(?:给|送|一下|过来|上来)|提供|分享|告诉我)[^。？！\n]{0,20}(?:输出|错误|日志|报错)",
    )))
    .expect("asked-output regex is valid")
});

/// A condition of failure on a request ("if it still fails, paste …", "paste the error if
/// you still see it", "should the build break again, send …"): output asked for only in
/// case the work failed, so its paste reports that it did.
static IF_FAILS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(concat!(
        r"(?i)\b(?:if|in\s+case|whenever)\b[^.?!\n,;]{0,50}?\b(?:still|fails?|failed|failing|errors?|erroring|errs|persists?|breaks?|crash\w*|doesn['’]?t\s+work|does\s+not\s+work|not\s+working|goes\s+wrong|same)\b",
        r"|\bshould\s+(?:it|that|this|the\s+\w+)\s+(?:still\s+)?(?:fail|error|break|crash)",
        r"|\b(?:wenn|falls)\b[^.?!\n,;]{0,50}?\b(?:immer\s+noch|noch\s+immer|fehl\w*|scheitert)",
        r"|\bsi\b[^.?!\n,;]{0,50}?\b(?:toujours|échoue|erreur|sigue|falla)",
        r"|(?:如果|若|要是)[^。？！\n，]{0,20}(?:还是|还有|仍|失败|报错|出错|问题|错误)",
    )))
    .expect("if-fails regex is valid")
});

/// The assistant asked for output to be pasted whatever happens ("run X and paste the
/// output"): a paste of it is a report, not pushback. An ask made only in case of failure
/// does not count.
fn asked_output(m: &Message) -> bool {
    asks_for_output(m).iter().any(|(_, conditional)| !conditional)
}

/// The sentence asking for output only in case the work still fails ("If it still errors,
/// please paste the first error block"): the paste of that output says it failed.
fn asked_if_fails(m: &Message) -> Option<String> {
    asks_for_output(m).into_iter().find(|(_, conditional)| *conditional).map(|(s, _)| s)
}

/// The sentences of an assistant message that ask for output, each with whether a
/// condition of failure governs it: its own ("if it still fails, paste …") or that of the
/// line its list hangs under ("If the problem remains:" over "- tell me the error"; a
/// list item's indented lines hang under it).
fn asks_for_output(m: &Message) -> Vec<(String, bool)> {
    let p = prose(&m.text);
    // The lines the current one hangs under: indent, list item or not, a condition of failure.
    let mut parents: Vec<(usize, bool, bool)> = Vec::new();
    let mut out = Vec::new();
    for line in p.lines() {
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        let indent = line.len() - t.len();
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        let item = ["- ", "* ", "• ", "+ "].iter().any(|b| t.starts_with(b))
            || (digits > 0 && t[digits..].starts_with(['.', ')']));
        while parents.last().is_some_and(|&(at, was_item, _)| at > indent || (at == indent && (was_item || !item))) {
            parents.pop();
        }
        let inherited = parents.iter().any(|&(_, _, conditional)| conditional);
        for (s, _) in sentences(t) {
            if ASKED_OUTPUT.is_match(s) {
                out.push((unbullet(s).to_string(), inherited || if_fails(s)));
            }
        }
        // A line at the list's own level governs it only as a heading ("If it fails:").
        let heads = item || t.trim_end_matches(['*', ' ']).ends_with([':', '：']);
        parents.push((indent, item, heads && if_fails(t)));
    }
    out
}

/// A condition of failure in a sentence. "If you paste the errors, …" makes the paste the
/// condition, not a failure.
fn if_fails(s: &str) -> bool {
    IF_FAILS.find_iter(s).any(|c| !PASTE_VERB.is_match(c.as_str()))
}

/// Verbs of handing output over: in a condition, the paste is what is conditional.
static PASTE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:paste|share|send|post|show|copy|give|provide)\b").expect("paste-verb regex is valid")
});

/// A turn that opens by asking to fix what it pastes ("fix:", "fix this:"): after a success
/// claim the paste is the failure, even when it holds no error line (a run that ends at the
/// prompt without the promised result).
static FIX_ASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:please\s+)?fix(?:\s+(?:this|it|that))?\s*:").expect("fix-ask regex is valid")
});

/// A shell prompt with a command after it, at the start of a line: a terminal run pasted
/// whole. What stands before `$`/`%` is a prompt's own (`user@host ~`, `(venv)`,
/// `host:dir`), never a word of prose: "dropped to 50 % on" is no prompt.
static PROMPT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^(?:\S*[@:~/\])]\S*(?:\s+\S*[@:~/\]]\S*)?\s+|[A-Za-z][\w.-]*\s+)?[$%]\s+[\w./-]|^PS [A-Za-z]:\\[^>]*>\s*\w")
        .expect("prompt-run regex is valid")
});

/// "fix:" over a pasted terminal run (a prompt and its command, two or more lines): the
/// first line of the paste. A pasted title or message without a run ("fix this : CodeQL
/// Advanced #5") is a new request, not the claimed work failing.
fn fix_paste(text: &str) -> Option<String> {
    let rest = &text[FIX_ASK.find(text)?.end()..];
    let mut lines = rest.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    lines.next()?;
    PROMPT_RUN.is_match(rest).then(|| first.to_string())
}

/// A quoted operand in an error line: "manifest path `a/Cargo.toml` does not exist".
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[`'‘]([^`'’\s]{4,120})[`'’]").expect("quoted-operand regex is valid"));
/// A code span of an assistant message.
static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").expect("code-span regex is valid"));

/// The pasted error names an operand of a command line the assistant's message gave in
/// a code span ("Use: `cargo build --manifest-path a/Cargo.toml`" → "error: manifest path
/// `a/Cargo.toml` does not exist"): the command it prescribed failed, as a claimed fix
/// would have.
fn names_prescribed(error: &str, m: &Message) -> bool {
    let commands: Vec<&str> = CODE_SPAN
        .captures_iter(&m.text)
        .filter_map(|c| c.get(1))
        .map(|c| c.as_str())
        .filter(|c| c.trim().contains(' '))
        .collect();
    QUOTED.captures_iter(error).any(|q| commands.iter().any(|c| c.split_whitespace().any(|w| w == &q[1])))
}

/// Markers of a pasted error or log line.
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)traceback\s+\(most\s+recent|\b\w*(?:error|exception)\b\s*[:(\[]|^\s*error\b|\berror\[\w+\]|\bwarning(?:\[\w+\])?:|^\s*warning\b|\bFAILED\b|\bFAILURES\b|^\s*FAIL\b|npm\s+ERR!|\bfatal:|\bpanicked\s+at\b",
        // The dynamic loader's refusals ("version `GLIBC_2.39' not found (required by …)").
        r"|\bversion\s+\S+\s+not\s+found\b|error\s+while\s+loading\s+shared\s+libraries|symbol\s+lookup\s+error",
        // A program's message naming its operand: "package ID specification `codex-cli`
        // did not match any packages", "path 'x' does not exist".
        r"|[`'‘][^`'’\n]{1,120}[`'’]\s+(?:did\s+not\s+match\s+any|does\s+not\s+exist|(?:was\s+|is\s+)?not\s+found|could\s+not\s+be\s+found|is\s+not\s+recognized)\b",
        r"|\bno\s+such\s+(?:column|table)\b|\bconstraint\s+failed\b|\bis\s+not\s+a\s+function\b|\bcannot\s+read\s+propert(?:y|ies)\s+of\b",
        r"|command\s+not\s+found|no\s+such\s+file|permission\s+denied|exit\s+code\s+[1-9]|exit\s+status\s+[1-9]|\bWRN\b|\bERR\b|^\s*E\s{2,}\S|\bUncaught\b",
        // A program naming what it could not find ("Command alden_chat_history_get not
        // found", "Module './phases/x' was not found"); the name is code-like or quoted, so
        // "the command palette was not found" stays prose.
        r"|\b(?:command|module|package|function|method|handler|route|symbol)\s+(?:[`'\x22][^`'\x22\n]{1,80}[`'\x22]|[\w@-]*[_:./][\w:./@-]*)\s+(?:was\s+|is\s+)?not\s+found\b",
    ))
    .expect("error-line regex is valid")
});

/// A line of a stack trace, compiler output, test or CI log, or a shell prompt.
static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"^\s*(?:File\s+"|at\s+\S+\s*\(|at\s+\S+:\d+|-->|\||\^|~~|[│╭╰├└┌]|\[\d|\d{1,2}:\d{2}|\(\.?venv\)|\S*[$%#>]\s|={3,}|_{3,}|-{3,}|[.FEsx]{6,}|Run\s+\S|\d+\s*\|)"#,
        r"|^\s*[\w .-]{1,24}:\s{2,}\S",
        r"|\.(?:py|rs|js|ts|tsx|jsx|go|java|cs|cpp|c|rb|php|md|yml|yaml|json|toml|sh):\d+|\bline\s+\d+\b|0x[0-9a-f]{6,}",
    ))
    .expect("log-line regex is valid")
});

static NOTE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:help|note|hint):\s").expect("note-line regex is valid"));

/// An offer or a request for an answer closing an assistant message.
static OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:want\s+me|would\s+you\s+like|shall\s+I|should\s+I|do\s+you\s+want|let\s+me\s+know)\b")
        .expect("offer regex is valid")
});

/// What an assistant adds when it declines: an offer of something else. A person's turn
/// that declines in the first person and offers this way is a reply they pasted.
static OFFERS_INSTEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bif\s+you['’]?d\s+like,?\s+I\s+can\b|\bI\s+can\s+help\s+(?:you\s+)?(?:craft|write|draft|with|set\s+up)\b",
        r"|\blet\s+me\s+know\s+(?:what|how)\s+you['’]?d\s+like\b",
    ))
    .expect("offers-instead regex is valid")
});

/// Words by which a session's first turn refers to work done before it.
static EARLIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&either_script(
        r"(?i)\b(?:still|again|anymore|your|tjrs|tjs|toujours|encore|immer\s+noch|noch\s+immer|wieder|todav[ií]a|sigue|ainda)\b|还是|仍然|依然|まだ|また",
    ))
    .expect("earlier regex is valid")
});

/// The person's turn, split into what they wrote and what they pasted.
struct Words {
    /// Their own words, line by line, without pasted lines.
    own: String,
    /// Lines that look pasted, and the first of them that reads as an error.
    pasted_lines: usize,
    pasted_chars: usize,
    error: Option<String>,
}

fn is_pasted(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    // A compiler's "help:"/"note:" line, or a prompt and its command (zsh's `dir % cargo …`).
    if ERROR_LINE.is_match(line) || LOG_LINE.is_match(line) || NOTE_LINE.is_match(line) || PROMPT_RUN.is_match(line) {
        return true;
    }
    // Indented like code or a log, or dense with code punctuation.
    if line.starts_with('\t') || line.starts_with("    ") {
        return true;
    }
    let symbols = t.chars().filter(|c| "()[]{}<>=;_/\\|\"'`$@#".contains(*c)).count();
    if symbols * 7 >= t.chars().count() {
        return true;
    }
    // Mostly not letters: box drawing, numbers, paths.
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    letters * 2 < t.chars().count()
}

/// `@file` mentions (Cursor rules, attached files): names, not the person's words.
static MENTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)(?:^|\s)@(?:[A-Za-z]:[\\/])?[\w./\\-]+(?::\d+(?:-\d+)?)?").expect("mention regex is valid")
});

fn words(text: &str) -> Words {
    let text = without_ansi(text);
    let mut own = String::new();
    let mut pasted_lines = 0;
    let mut pasted_chars = 0;
    let mut error = None;
    // Fenced blocks are pasted too: count them, look for an error in them.
    for (place, line) in fences::lines(&text) {
        if place == Place::Fence {
            continue;
        }
        if place == Place::Code || is_pasted(line) {
            if !line.trim().is_empty() {
                pasted_lines += 1;
                pasted_chars += line.trim().chars().count();
                if error.is_none() && ERROR_LINE.is_match(line) {
                    error = Some(line.trim().to_string());
                }
            }
            continue;
        }
        own.push_str(line);
        own.push('\n');
    }
    let own = MENTION.replace_all(&prose(&own), " ").into_owned();
    Words { own, pasted_lines, pasted_chars, error }
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^#{1,6}\s+\w").expect("heading regex is valid"));

/// A prompt template or a slash command's expansion rather than a reply: long, with
/// markdown headings.
fn templated(text: &str) -> bool {
    let p = prose(text);
    p.chars().count() >= 1500 && p.lines().filter(|l| HEADING.is_match(l)).count() >= 2
}

/// The first sentences of the person's own words.
fn head(own: &str) -> Vec<(&str, Option<char>)> {
    let mut out = Vec::new();
    let mut chars = 0;
    for (s, end) in sentences(own) {
        if out.len() >= HEAD_SENTENCES || chars >= HEAD_CHARS {
            break;
        }
        chars += s.chars().count();
        out.push((s, end));
    }
    out
}

/// A sentence that asks rather than reports. "Why …?" presupposes what it asks about, and
/// "did you consider …?" points at what was left out.
fn asks(s: &str, end: Option<char>) -> bool {
    end == Some('?') && ASKS.is_match(s) && !WHY.is_match(s) && !OMITTED.is_match(s)
}

/// The first sentence where `re` matches as a report: not hedged, not a question.
fn reported<'a>(sents: &[(&'a str, Option<char>)], re: &Regex, questions_ok: bool) -> Option<&'a str> {
    sents.iter().find_map(|(s, end)| {
        let m = re.find(s)?;
        if HEDGE.is_match(clause_before(s, m.start())) || (!questions_ok && asks(s, *end)) {
            return None;
        }
        // "I don't see the point" is an opinion, not a missing thing.
        let rest = s[m.end()..].trim_start().to_lowercase();
        if m.as_str().to_lowercase().contains(" see ")
            && ["point", "need", "reason", "benefit", "value", "difference", "why", "how"]
                .iter()
                .any(|w| rest.starts_with(w))
        {
            return None;
        }
        Some(*s)
    })
}

/// The first sentence observing that something persists ("I still see ellipsis"), as a
/// report: not hedged, not a question, not a new request, not an opinion ("I still see
/// the point").
fn persists<'a>(sents: &[(&'a str, Option<char>)]) -> Option<&'a str> {
    sents.iter().find_map(|(s, end)| {
        let m = PERSISTS.find(s)?;
        let report = !SEES_OPINION.is_match(&s[m.end()..])
            && !HEDGE.is_match(clause_before(s, m.start()))
            && !asks(s, *end)
            && !REQUEST.is_match(s);
        report.then_some(*s)
    })
}

/// The sentence of an assistant message that claims the work done, if any.
fn claim(m: &Message) -> Option<String> {
    let p = prose(&m.text);
    let sents = sentences(&p);
    sents.iter().rev().find_map(|(s, end)| {
        if *end == Some('?') {
            return None;
        }
        let s = unbullet(s);
        let at = CLAIM.find(s)?;
        (!CLAIM_HEDGE.is_match(clause_before(s, at.start()))).then(|| s.to_string())
    })
}

/// A sentence without its list marker ("- ", "* ", "2. ", "**").
fn unbullet(s: &str) -> &str {
    let t = s.trim_start_matches(['-', '*', '•', '+', ' ']);
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && t[digits..].starts_with(['.', ')']) { t[digits + 1..].trim_start() } else { t }
}

/// The last sentence of an assistant message asks the person something or offers.
fn ends_asking(m: &Message) -> bool {
    let p = prose(&m.text);
    let sents = sentences(&p);
    let Some((last, end)) = sents.last() else { return false };
    *end == Some('?') || OFFER.is_match(last)
}

/// Any sentence of an assistant message asks or offers: what follows may answer it, not
/// correct the work. (A rule for a choice put without a question mark — "which would",
/// "option 1", "prefer" — was here, written with backspace characters where `\b` was
/// meant, so it never matched; written as meant it costs development cx55 [msg 51], where
/// "intended as FULL system review" corrects a review offered among options. Removed.)
fn asks_anything(m: &Message) -> bool {
    let p = prose(&m.text);
    sentences(&p).iter().any(|(s, end)| *end == Some('?') || OFFER.is_match(s))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Failure,
    Conceded,
    Persists,
    Pasted,
    Symptom,
    Unfinished,
    No,
    Challenge,
    Redirect,
    Refused,
}

impl Detector for UserPushback {
    fn id(&self) -> &'static str {
        "user-pushback"
    }

    fn summary(&self) -> &'static str {
        "The user corrected the assistant or reported that its work did not work (\"still failing\", \"no, …\")"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        // The assistant message the previous finding answered, and that finding's turn.
        let mut answered_before: Option<(usize, usize)> = None;
        for (i, m) in msgs.iter().enumerate() {
            if !m.is_typed_user() || m.sidechain || m.text.trim().is_empty() {
                continue;
            }
            let lo = i.saturating_sub(ANSWER_WINDOW);
            // The assistant's last message with text, and the person's previous turn.
            let last = (lo..i).rev().find(|&j| msgs[j].role == Role::Assistant && !msgs[j].text.trim().is_empty());
            let prev_turn = (lo..i).rev().find(|&j| msgs[j].is_typed_user());
            let worked = (lo..i).any(|j| msgs[j].role == Role::Assistant);
            // A success claim in the turn it answers (or the last words before it).
            let from = match (prev_turn, last) {
                (Some(p), Some(l)) if l < p => l,
                (Some(p), _) => p + 1,
                (None, _) => lo,
            };
            let claimed = (from..i)
                .rev()
                .filter(|&j| msgs[j].role == Role::Assistant && !msgs[j].text.trim().is_empty())
                .find_map(|j| claim(&msgs[j]).map(|c| (j, c)));
            // Output asked for only "if it still fails" hands the work back: when it is
            // pasted, it says the work failed, as after a claim.
            let if_failed = last.and_then(|l| asked_if_fails(&msgs[l]).map(|s| (l, s)));
            let asked = last.is_some_and(|l| asked_output(&msgs[l]));
            // Files changed in the turn and the turn ended: the change is handed back to
            // be tried, whatever words close it.
            let changed = handed_back(msgs, from, i, last);

            // What the person typed, without the IDE's context around it.
            let text = typed(&m.text);
            let w = words(&text);
            if templated(&text) {
                continue;
            }
            // Sentences the person copied from the assistant's message are its words.
            // (Compared without markdown emphasis: "**目录位置错误**：…" copied as "目录位置错误：…".)
            let before = last.map(|l| plain(&msgs[l].text)).unwrap_or_default();
            let sents: Vec<(&str, Option<char>)> = head(&w.own)
                .into_iter()
                .filter(|(s, _)| width(s) < 20 || !before.contains(&plain(unbullet(s))))
                .collect();
            let own_chars: usize = w.own.split_whitespace().map(|t| t.chars().count() + 1).sum();

            // Moving on to the next item ("Next, the PDF upload doesn't work yet"): a
            // failure it names that the assistant's message never spoke of is the next task.
            let moves_on = sents.first().is_some_and(|(f, _)| NEXT.is_match(f))
                && last.is_some_and(|l| {
                    let said = content_words(&msgs[l].text);
                    !sents.iter().any(|(s, _)| content_words(s).intersection(&said).next().is_some())
                });
            // Taking the assistant's offer ("Shall I fix it now?" → "yes, go ahead" and the
            // error to fix): the paste is what the task is about, not its failure.
            let takes_offer =
                last.is_some_and(|l| ends_asking(&msgs[l])) && sents.first().is_some_and(|(f, _)| APPROVAL.is_match(f));

            let mut found: Option<(Kind, String)> = None;
            if moves_on {
                // A new task: nothing below reads it as a report.
            } else if let Some(s) = reported(&sents, &CHALLENGE, true)
                && refusal_before(msgs, i).is_some()
            {
                found = Some((Kind::Challenge, s.to_string()));
            } else if let Some(s) = reported(&sents, &STRONG, false)
                // The output the assistant asked for, pasted with a word on what it shows:
                // a report of the run, not a correction of a claim. (Asked for in case of
                // failure, an error in the paste says the work failed: found below.)
                && !((asked || if_failed.is_some()) && w.pasted_chars >= 2 * own_chars)
            {
                found = Some((Kind::Failure, s.to_string()));
            } else if (claimed.is_some() || if_failed.is_some() || changed.is_some())
                && !asked
                && !takes_offer
                && let Some(e) = w
                    .error
                    .clone()
                    // Pasted lines longer than their own words, or an error line alone.
                    .filter(|_| (w.pasted_lines >= 1 && w.pasted_chars >= own_chars) || own_chars == 0)
                    .or_else(|| fix_paste(&text))
            {
                found = Some((Kind::Pasted, e));
            } else if let Some(l) = last
                && !asked
                && let Some(e) =
                    w.error.clone().filter(|_| (w.pasted_lines >= 1 && w.pasted_chars >= own_chars) || own_chars == 0)
                && names_prescribed(&e, &msgs[l])
            {
                // The command the assistant gave to run failed on what it named.
                found = Some((Kind::Pasted, e));
            } else if let Some(l) = last
                && let Some((first, _)) = sents.first()
                && REFUSAL.is_match(first)
                && OFFERS_INSTEAD.is_match(&w.own)
                && content_words(first).intersection(&content_words(&prose(&msgs[l].text))).next().is_some()
            {
                // The reply of the program the assistant set up, pasted: it declines what
                // the assistant's last message had it do.
                found = Some((Kind::Refused, first.to_string()));
            } else if claimed.is_some()
                && !asked
                && let Some(s) = reported(&sents, &WEAK, false).filter(|s| !REQUEST.is_match(s))
                && !sents.first().is_some_and(|(f, _)| APPROVAL.is_match(f))
            {
                found = Some((Kind::Symptom, s.to_string()));
            } else if (claimed.is_some() || changed.is_some())
                && !asked
                && !takes_offer
                && let Some(s) = persists(&sents)
                && !sents.first().is_some_and(|(f, _)| APPROVAL.is_match(f))
            {
                // What the claimed change was to remove, observed still there.
                found = Some((Kind::Persists, s.to_string()));
            } else if let Some((_, claim)) = &claimed
                && let Some((first, end)) = sents.first()
                && !asks(first, *end)
                && let Some(c) = UNFINISHED.captures(first)
                && c.name("what").is_none_or(|w| claim.to_lowercase().contains(&w.as_str().to_lowercase()))
            {
                found = Some((Kind::Unfinished, first.to_string()));
            } else if let Some(l) = last
                && !asks_anything(&msgs[l])
                && let Some(s) = reported(&sents, &INTENDED, false)
            {
                // What the work was meant to be, restated after it was handed back.
                found = Some((Kind::No, s.to_string()));
            } else if (claimed.is_some() || changed.is_some())
                && let Some(l) = last
                && !asks_anything(&msgs[l])
                && let Some((first, end)) = sents.first()
                && !asks(first, *end)
                && RULE.captures(first).is_some_and(|c| !c[1].eq_ignore_ascii_case("mind"))
                && w.own.split_whitespace().count() <= 8
            {
                // A rule in a few words right after the work: the work broke it.
                found = Some((Kind::No, first.to_string()));
            } else if (claimed.is_some() || changed.is_some())
                && w.pasted_lines >= 3
                && let Some((s, _)) =
                    sents.iter().find(|(s, end)| !asks(s, *end) && SHOULD_BE.is_match(s) && !EXTENDS.is_match(s))
            {
                // The result pasted, and how it should look instead.
                found = Some((Kind::No, s.to_string()));
            } else if let Some(l) = last
                && !ends_asking(&msgs[l])
                && let Some((first, _)) = sents.first()
                && let Some(c) = NO_START.captures(first)
                && let Some(rest) = c.get(1)
                && (!NO_DECLINES.is_match(rest.as_str()) || (changed.is_some() && NO_UNDO.is_match(rest.as_str())))
                && rest.as_str().split_whitespace().count() >= 2
            {
                found = Some((Kind::No, first.to_string()));
            } else if let Some(l) = last
                && own_chars < 300
                && let Some((first, end)) = sents.first()
                && !asks(first, *end)
                && LOCATED.is_match(first)
                && ABSENT.is_match(&prose(&msgs[l].text))
                && !ASKS_WHERE.is_match(&prose(&msgs[l].text))
            {
                found = Some((Kind::No, first.to_string()));
            } else if changed.is_some()
                && let Some((first, _)) = sents.first()
                && (forbids_edited(first, msgs, from, i)
                    || undoes_edited(first, prev_turn.map(|p| typed(&msgs[p].text)).as_deref(), msgs, from, i))
            {
                found = Some((Kind::No, first.to_string()));
            }
            // The person stopped the assistant and says how it should be done instead, at
            // once (after a pasted finding, "X should …" is a next step, not a redirect).
            if found.is_none()
                && !moves_on
                && (lo..i).rev().find(|&j| msgs[j].role != Role::System).is_some_and(|j| stopped(&msgs[j]))
                && own_chars < 400
                && let Some((first, end)) = sents.first()
                && !asks(first, *end)
                && !NO_DECLINES.is_match(first)
                && let Some(s) = reported(&sents[..sents.len().min(REDIRECT_SENTENCES)], &REDIRECT, false)
            {
                found = Some((Kind::Redirect, s.to_string()));
            }
            // The assistant's answer concedes the turn ("You're absolutely right! In June
            // 2025, Node.js 18 …"): whatever its words, the person had corrected it. Not a
            // request, an approval or a turn that only asks.
            let mut conceded: Option<(usize, String)> = None;
            if found.is_none()
                && !moves_on
                && worked
                && let Some((first, end)) = sents.first()
                && !REQUEST.is_match(first)
                && !APPROVAL.is_match(first)
                && !(sents.len() == 1 && asks(first, *end))
                && sents.iter().any(|(s, _)| NEGATES.is_match(s))
                && let Some(c) = concession_after(msgs, i)
            {
                found = Some((Kind::Conceded, first.to_string()));
                conceded = Some(c);
            }
            let Some((kind, said)) = found else { continue };
            let claimed = match kind {
                Kind::Pasted => claimed.or(if_failed).or(changed),
                Kind::No | Kind::Persists | Kind::Conceded => claimed.or(changed),
                _ => claimed,
            };
            if !worked {
                // The first turn of a session pushes back only on earlier work it names.
                if kind != Kind::Failure || !EARLIER.is_match(&said) {
                    continue;
                }
            }
            // What it answers: the claim, or the refusal it challenges, else the last words.
            let refusal = (kind == Kind::Challenge).then(|| refusal_before(msgs, i)).flatten();
            let answered = refusal.or(claimed.as_ref().map(|(j, _)| *j)).or(last);
            // A second turn in a row on the same answer adds to the first pushback.
            if let (Some(a), Some((b, k))) = (answered, answered_before)
                && a == b
                && !(k..i).any(|j| msgs[j].role == Role::Assistant)
            {
                continue;
            }
            if let Some(a) = answered {
                answered_before = Some((a, i));
            }
            let mut evidence: Vec<u32> = answered.into_iter().map(|j| msgs[j].idx).collect();
            if let Some(l) = last
                && Some(l) != answered
                && kind != Kind::Challenge
            {
                evidence.push(msgs[l].idx);
            }
            evidence.push(m.idx);
            evidence.extend(conceded.as_ref().map(|(j, _)| msgs[*j].idx));
            evidence.sort_unstable();
            evidence.dedup();
            let q = quote(&said, 100);
            let verb = match kind {
                Kind::Failure => "pushes back",
                Kind::Conceded => "corrects the assistant",
                Kind::Persists => "reports the problem persists",
                Kind::Pasted => "pastes an error",
                Kind::Symptom => "reports a problem",
                Kind::Unfinished => "says the work is not finished",
                Kind::No => "corrects the assistant",
                Kind::Challenge => "challenges the assistant's refusal",
                Kind::Redirect => "interrupts the assistant and redirects it",
                Kind::Refused => "pastes a refusal of what was set up",
            };
            // What the person answered: the refusal they challenge, or the claim they
            // push back on.
            let answered_claim = match (kind, refusal, &claimed) {
                (Kind::Challenge, Some(j), _) => {
                    let r = prose(&msgs[j].text);
                    let s = sentences(&r).into_iter().find(|(s, _)| REFUSAL.is_match(s)).map(|(s, _)| s.to_string());
                    Some((j, s.unwrap_or_default()))
                }
                (k, _, Some((j, c))) if k != Kind::Challenge => Some((*j, c.to_string())),
                _ => None,
            };
            let context = match (kind, &answered_claim) {
                (Kind::Challenge, Some((j, s))) => format!(" (\"{}\", {})", quote(s, 80), ago(m.idx, msgs[*j].idx)),
                (_, Some((j, c))) => {
                    format!(" after the assistant's \"{}\" ({})", quote(c, 80), ago(m.idx, msgs[*j].idx))
                }
                _ => String::new(),
            };
            // Else what the answered message concluded, or how it began.
            let claim = answered_claim
                .filter(|(_, c)| !c.is_empty())
                .map(|(j, c)| Cited { idx: msgs[j].idx, text: quote(&c, 160) })
                .or_else(|| {
                    let j = answered?;
                    let t = &msgs[j].text;
                    let said = first_of(t, &[Claim::Conclusion], 220).unwrap_or_else(|| lead_sentences(t, 1, 220));
                    (!said.is_empty()).then(|| Cited { idx: msgs[j].idx, text: said })
                });
            let details = Details::Belief {
                claim,
                undone: Some(Undoing { idx: m.idx, how: "pushback".into(), text: sentence_quote(&text, &said, 220) }),
            };
            let granted =
                conceded.map_or(String::new(), |(_, c)| format!(" (the assistant concedes: \"{}\")", quote(&c, 60)));
            out.push(Finding {
                detector: self.id().into(),
                key: m.idx,
                evidence,
                summary: format!("the user {verb}{context}: \"{q}\"{granted}"),
                command: None,
                details: Some(details),
            });
        }
    }
}

/// The turn's change handed back: the assistant edited a file in `from..i` (since the
/// person's previous turn) and said something after its last edit, which ended the turn.
/// That message and its first sentence, as a claim: an error pasted then says the change
/// did not work, however the assistant worded it ("Rebuilt the grid …", "Agreed, and
/// enforced.").
fn handed_back(msgs: &[Message], from: usize, i: usize, last: Option<usize>) -> Option<(usize, String)> {
    let l = last.filter(|&l| l >= from)?;
    let edited = (from..i).rev().find(|&j| msgs[j].calls.iter().any(|c| !edits(c).is_empty()))?;
    if edited > l {
        return None;
    }
    let p = prose(&msgs[l].text);
    let first = sentences(&p).into_iter().map(|(s, _)| unbullet(s)).find(|s| !s.is_empty())?;
    Some((l, first.to_string()))
}

/// An order not to change a file, opening a turn: "Don't edit the README.md".
static FORBIDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:please\s+)?(?:don['’]?t|do\s+not|never|stop)\s+(?:edit|editing|touch|touching|change|changing|modify|modifying|rewrite|rewriting|overwrite|overwriting)\s+(?:the\s+|my\s+|our\s+)?([\w./\\-]+)",
    )
    .expect("forbids regex is valid")
});

/// The turn opens by forbidding a change to a file the assistant edited in `from..i`:
/// it rejects what was just done ("Don't edit the README.md... It's README file not an
/// EDITME file" after the README was edited twice).
fn forbids_edited(first: &str, msgs: &[Message], from: usize, i: usize) -> bool {
    FORBIDS.captures(first).is_some_and(|c| edited_file(&c[1], msgs, from, i))
}

/// An order to take something out of a file, opening a turn (after an interjection at
/// most): "jesus, remove the section from the README".
static UNDO_ORDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[,;:!—–-]\s*)(?:please\s+|now\s+|just\s+)?(?:remove|delete|revert|undo|take\s+out|get\s+rid\s+of|roll\s+back)\s+(?:.{1,60}?\s+)?(?:from|out\s+of)\s+(?:the\s+|my\s+|our\s+)?([\w./\\-]+)",
    )
    .expect("undo-order regex is valid")
});
/// Asking to put something in a file: what a later removal from it then only tidies up.
static PUT_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:add|put|insert|include|append|write|place)\b").expect("put-in regex is valid")
});

/// A file of `msgs[from..i]`'s edits that `named` names: by its file name, or by its name
/// without the extension ("the README" for README.md).
fn edited_file(named: &str, msgs: &[Message], from: usize, i: usize) -> bool {
    let named = named.trim_end_matches(['.', ',', '!']).to_lowercase();
    let base = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_lowercase();
    let stem = |p: &str| {
        let b = base(p);
        b.split_once('.').map_or(b.clone(), |(s, _)| s.to_string())
    };
    !named.is_empty()
        && msgs[from..i]
            .iter()
            .flat_map(|m| &m.calls)
            .flat_map(edits)
            .any(|e| base(&e.file) == base(&named) || (!named.contains('.') && stem(&e.file) == named))
}

/// The turn opens by ordering something out of a file the assistant edited in
/// `from..i`: it undoes what was just done ("remove the agent from the README" after an
/// agent section was added to README.md). Not when the person's previous turn asked to
/// put something in that file ("add debug prints to main.py" … "now remove the prints
/// from main.py"): that removal tidies up what they asked for.
fn undoes_edited(first: &str, prev: Option<&str>, msgs: &[Message], from: usize, i: usize) -> bool {
    let Some(c) = UNDO_ORDER.captures(first) else { return false };
    let named = &c[1];
    let asked_for = prev.is_some_and(|p| {
        sentences(p).iter().any(|(s, _)| PUT_IN.is_match(s) && s.to_lowercase().contains(&named.to_lowercase()))
    });
    !asked_for && edited_file(named, msgs, from, i)
}

/// The assistant's first message with text after the turn at `i`, when it opens by
/// conceding the turn's point (before the person says anything else): that message and
/// its conceding sentence.
fn concession_after(msgs: &[Message], i: usize) -> Option<(usize, String)> {
    let j = (i + 1..msgs.len())
        .take(ANSWER_WINDOW)
        .take_while(|&j| !msgs[j].is_typed_user())
        .find(|&j| msgs[j].role == Role::Assistant && !msgs[j].text.trim().is_empty())?;
    opens_conceding(&msgs[j].text).map(|c| (j, c))
}

/// The assistant's refusal a turn at `i` may challenge: "you have access" with no
/// refusal before it answers an offer, it does not challenge anything.
fn refusal_before(msgs: &[Message], i: usize) -> Option<usize> {
    (i.saturating_sub(REFUSAL_WINDOW)..i)
        .rev()
        .find(|&j| msgs[j].role == Role::Assistant && REFUSAL.is_match(&prose(&msgs[j].text)))
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as read, for comparing what the person copied: whitespace squashed, lowercase,
/// without markdown emphasis and code marks.
fn plain(s: &str) -> String {
    squash(&s.replace(['*', '`'], "")).to_lowercase()
}

/// Length of a sentence in Latin letters' terms: a Han, kana or Hangul character says as
/// much as a short word, so it counts for two.
fn width(s: &str) -> usize {
    s.chars().map(|c| if c > '\u{2e7f}' && c.is_alphabetic() { 2 } else { 1 }).sum()
}

/// The person stopped the assistant: an interrupt, or a call of its last message that
/// they denied or cancelled.
fn stopped(m: &Message) -> bool {
    m.origin == Origin::Interrupt
        || (m.role == Role::Assistant && m.calls.last().and_then(|c| c.result.as_ref()).is_some_and(|r| r.interrupted))
}

fn ago(now: u32, then: u32) -> String {
    let n = now.saturating_sub(then);
    format!("{n} message{} earlier", crate::analysis::text::plural(u64::from(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture::{self, bash};

    fn said(idx: u32, text: &str) -> Message {
        fixture::said(idx, Role::Assistant, text)
    }

    fn user(idx: u32, text: &str) -> Message {
        fixture::said(idx, Role::User, text)
    }

    fn run(msgs: &[Message]) -> Vec<Finding> {
        fixture::check(&UserPushback, msgs)
    }

    fn keys(msgs: &[Message]) -> Vec<u32> {
        run(msgs).iter().map(|f| f.key).collect()
    }

    #[test]
    fn a_fix_paste_needs_a_prompt_at_a_line_start() {
        for run in
            ["dana@book ~ % ssh build\nThe authenticity of host", "$ ls -la\ntotal 0", "(venv) $ pytest\n1 failed"]
        {
            assert!(fix_paste(&format!("fix:\n{run}")).is_some(), "{run}");
        }
        assert!(fix_paste("fix:\nocodex % cargo build --bin x\nerror: no bin target").is_some());
        for prose in [
            "the coverage dropped to 50 % on\nthe main branch",
            "it costs $ 5 now\nand more later",
            "50 % of runs fail\nsince Monday",
        ] {
            assert!(fix_paste(&format!("fix:\n{prose}")).is_none(), "{prose}");
        }
    }

    #[test]
    fn a_lone_error_line_after_a_change_handed_back_is_pushback() {
        let error = "error: manifest path `codex-rs/Cargo.toml` does not exist";
        for claim in [
            "I updated the Dockerfile to copy the build context. Build again with docker build -t app .",
            "Switched the build to the binary name.\n\nRebuild with:\n- `docker build -t app .`",
        ] {
            let msgs = vec![user(1, "fix the docker build"), said(2, claim), user(3, error)];
            assert_eq!(keys(&msgs), vec![3], "{claim}");
        }
        // Asked for whatever happens, or no change handed back: a report, not pushback.
        let asked = "I changed the base image. Run it again and paste the error it prints.";
        assert!(run(&[user(1, "fix the docker build"), said(2, asked), user(3, error)]).is_empty());
        let look = "The Dockerfile copies the build context into /src.";
        assert!(run(&[user(1, "fix the docker build"), said(2, look), user(3, error)]).is_empty());
        // A line of their own with it is read as their words.
        let claim = "I updated the Dockerfile. Build again with docker build -t app .";
        let question = "is it fine to run cargo build instead?";
        assert!(run(&[user(1, "fix the docker build"), said(2, claim), user(3, question)]).is_empty());
    }

    #[test]
    fn a_program_error_quoted_inside_a_question_is_pushback() {
        let claim = "I updated the Dockerfile to build with -p codex-cli. Build again with docker build -t app .";
        let turn = "package ID specification `codex-cli` did not match any packages is it fine to just run cargo build --bin app ?";
        assert_eq!(keys(&[user(1, "fix the docker build"), said(2, claim), user(3, turn)]), vec![3]);
        // A name in quotes that the person says is missing, with no claim before: a report.
        let look = "The Dockerfile builds the workspace with -p codex-cli.";
        assert!(run(&[user(1, "fix the docker build"), said(2, look), user(3, turn)]).is_empty());
        // Prose that names a thing without a program's message about it stays theirs.
        let ask = "is `codex-cli` the right package to build, or should it be app?";
        assert!(run(&[user(1, "fix the docker build"), said(2, claim), user(3, ask)]).is_empty());
    }

    #[test]
    fn a_refusal_pasted_from_the_program_set_up_is_pushback() {
        let setup = "Enable network with -c network_access=true. Then prompt the agent to run a Google search (it will have the template).";
        let pasted = "I’m unable to reach the internet from this environment, so I can’t pull the latest data straight from Google. If you’d like, I can help craft a request or a script you can run locally. Let me know what you’d like to do next.";
        let f = run(&[user(1, "add google search"), said(2, setup), user(3, pasted)]);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![3], "{f:?}");
        assert!(f[0].summary.starts_with("the user pastes a refusal"), "{}", f[0].summary);
        // The person's own inability, without an assistant's offer; and a refusal about
        // something the assistant's message did not speak of.
        let own = "I can't reach the internet from the train, so I'll try the Google search tonight.";
        assert!(run(&[user(1, "add google search"), said(2, setup), user(3, own)]).is_empty());
        let other = "I’m unable to open the spreadsheet here. If you’d like, I can help draft the summary instead.";
        assert!(run(&[user(1, "add google search"), said(2, setup), user(3, other)]).is_empty());
    }

    #[test]
    fn a_contradiction_the_assistant_concedes_is_pushback() {
        assert!(NEGATES.is_match("It is current June 2025, and Node 18 is no longer supported"));
        let advice = "Switch to Node.js 18 LTS for better compatibility with the native modules.";
        let turn = "It is current June 2025, and Node 18 is no longer supported. How about 22 LTS?";
        let conceded = "You're absolutely right! In June 2025, Node.js 18 would be past its end-of-life. Let's use Node.js 22 LTS.";
        let f = run(&[user(1, "set up jest"), said(2, advice), user(3, turn), said(4, conceded)]);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![3], "{f:?}");
        assert_eq!(f[0].evidence, vec![2, 3, 4]);
        // A fact added, not a contradiction; a request; and no concession: not pushback.
        let added = "The contracts come in Traditional Chinese, Simplified Chinese and English.";
        let agreed = "You're right! The rules should match all three. Let me update them.";
        assert!(run(&[user(1, "set up jest"), said(2, advice), user(3, added), said(4, agreed)]).is_empty());
        let ask = "Add a test that does not need the network.";
        assert!(run(&[user(1, "set up jest"), said(2, advice), user(3, ask), said(4, conceded)]).is_empty());
        let plain = "Here is how to switch: nvm install 22.";
        assert!(run(&[user(1, "set up jest"), said(2, advice), user(3, turn), said(4, plain)]).is_empty());
    }

    #[test]
    fn a_problem_the_claim_removed_seen_again_is_pushback() {
        let claim = "Removed ellipsizing entirely; ellipses are gone and text wraps until it's clipped.";
        for turn in ["I still see ellpsis.  Is there a way to get rid of them?", "The banner is still there."] {
            assert_eq!(keys(&[user(1, "drop the ellipses"), said(2, claim), user(3, turn)]), vec![3], "{turn}");
        }
        // An opinion, a question, a hedge; and nothing claimed before.
        for turn in [
            "I still see the point of keeping them on past events.",
            "Is the ellipsis still showing on the month view?",
            "If I still see them tomorrow I'll send a screenshot.",
        ] {
            assert!(run(&[user(1, "drop the ellipses"), said(2, claim), user(3, turn)]).is_empty(), "{turn}");
        }
        let look = "The ellipses come from the event titles themselves.";
        assert!(run(&[user(1, "drop the ellipses"), said(2, look), user(3, "I still see ellipsis")]).is_empty());
    }

    #[test]
    fn a_problem_that_keeps_coming_back_is_a_failure_report() {
        let msgs = vec![
            user(1, "let the model search the web"),
            said(2, "ocodex now injects the search template when the keys are set."),
            user(3, "the script works but the ocodex model keeps saying no internet access"),
        ];
        assert_eq!(keys(&msgs), vec![3]);
        assert!(
            run(&[user(1, "x"), said(2, "Added the toggle."), user(3, "make sure it keeps running overnight")])
                .is_empty()
        );
        assert!(
            run(&[
                user(1, "x"),
                said(2, "Added the log line."),
                user(3, "it keeps the old value, which is what I want")
            ])
            .is_empty()
        );
    }

    #[test]
    fn still_failing_after_a_fix_cites_the_claim() {
        let msgs = vec![
            user(1, "the CI badge is red, can you fix it?"),
            bash(2, "git push", ""),
            said(3, "I pinned the Python versions in ci.yml. This should address the failing badge."),
            user(4, "Nope, the CI badge is still failing. Please check the workflows."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 4);
        assert_eq!(f[0].evidence, vec![3, 4]);
        assert_eq!(
            f[0].summary,
            "the user pushes back after the assistant's \"This should address the failing \
             badge\" (1 message earlier): \"Nope, the CI badge is still failing\""
        );
    }

    #[test]
    fn a_traceback_pasted_after_done_is_pushback_unless_it_was_asked_for() {
        let trace = "Traceback (most recent call last):\n  File \"app/main.py\", line 5, in <module>\n    from PySide6.QtWidgets import QAction\nImportError: cannot import name 'QAction'";
        let msgs = vec![
            user(1, "add the preview dialog"),
            said(2, "Done - added the preview dialog. All 17 tests pass."),
            user(3, trace),
        ];
        let f = run(&msgs);
        assert_eq!(keys(&msgs), vec![3]);
        assert_eq!(
            f[0].summary,
            "the user pastes an error after the assistant's \"All 17 tests pass\" (1 message earlier): \"Traceback (most \
             recent call last):\""
        );
        // The assistant asked for it whatever happens: a neutral report.
        let asked = vec![
            user(1, "the app won't start"),
            said(2, "I changed the import. Run it again and paste the traceback."),
            user(3, trace),
        ];
        assert!(run(&asked).is_empty());
        // A word on what the asked-for paste shows is still the report; said alone, it is not.
        let asked = vec![asked[0].clone(), asked[1].clone(), user(3, &format!("{trace}\nstill not working"))];
        assert!(run(&asked).is_empty());
        let words = vec![asked[0].clone(), asked[1].clone(), user(3, "it still doesn't work")];
        assert_eq!(keys(&words), vec![3]);
        // Asked for only in case it still fails: the paste says it did.
        for ask in [
            "Run it again and paste the traceback if it still fails.",
            "If it still errors, please paste the first error block (not just the summary).",
            "Should the import break again, send me the traceback.",
            "如果还是失败，请贴出完整的报错。",
        ] {
            let msgs =
                vec![user(1, "the app won't start"), said(2, &format!("I changed the import. {ask}")), user(3, trace)];
            assert_eq!(keys(&msgs), vec![3], "{ask}");
        }
        // The condition may head the list that asks: "If it still fails:" over "- paste …".
        let headed =
            "I changed the import.\n\n3. **If it still fails**:\n   - run it with -v\n   - paste the traceback";
        let msgs = vec![user(1, "the app won't start"), said(2, headed), user(3, trace)];
        assert_eq!(keys(&msgs), vec![3]);
        let plain = "I changed the import.\n\nNext steps:\n- run it with -v\n- paste the traceback";
        assert!(run(&[user(1, "the app won't start"), said(2, plain), user(3, trace)]).is_empty());
        // Logs asked for in case of failure, pasted without an error and with "still": the
        // run reported, not the claim refuted.
        let logs = "12:00:01 INFO loading config from app.toml\n12:00:01 INFO connecting to db at localhost:5432\n12:00:02 INFO listening on :8080 with 4 workers\nstill not working";
        let ask = "I added logging to the startup. If it still fails, paste the log it prints.";
        assert!(run(&[user(1, "the app won't start"), said(2, ask), user(3, logs)]).is_empty());
        // The conditional ask hands the work back even with no claim beside it.
        let msgs = vec![
            user(1, "the build fails"),
            said(2, "The workspace targets Rust 1.89. If it still errors, please paste the first error block."),
            user(3, "error: could not compile `app-core` (lib) due to 2 previous errors\nwarning: build failed"),
        ];
        assert_eq!(keys(&msgs), vec![3]);
        // Only the paste of that output: words after a conditional ask alone are a request.
        let msgs = vec![
            said(
                1,
                "These changes don't resolve an UnboundLocalError. If you're still encountering it, please provide the full error message.",
            ),
            user(2, "resolve the unboundlocal error mentioned in issue 1063"),
        ];
        assert!(run(&msgs).is_empty());
        let glibc = "app: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.39' not found (required by app)";
        assert!(ERROR_LINE.is_match(glibc));
        // A condition on something else keeps the ask unconditional.
        for ask in [
            "If you want, paste the traceback.",
            "If you paste the full error output, I can pinpoint it.",
            "Run it and paste the output; if it works, we move on.",
        ] {
            let msgs =
                vec![user(1, "the app won't start"), said(2, &format!("I changed the import. {ask}")), user(3, trace)];
            assert!(run(&msgs).is_empty(), "{ask}");
        }
        // Nothing was claimed: a new problem, not a failed fix.
        let unclaimed = vec![said(1, "Let me look at the entry point next."), user(2, trace)];
        assert!(run(&unclaimed).is_empty());
    }

    #[test]
    fn corrections_challenges_and_redirects() {
        // A plain "no" when nothing was asked.
        let msgs = vec![
            said(1, "I have created fix_shortcut.ps1 with the working dir set to M-Claude. Run it to apply."),
            user(2, "no, set the working dir to \\M-Gemini"),
        ];
        assert_eq!(
            run(&msgs)[0].summary,
            "the user corrects the assistant after the assistant's \"I have created fix_shortcut.ps1 with the working dir set to M-Claude\" (1 message earlier): \"no, set the working dir to \\M-Gemini\""
        );
        // A refusal challenged: the refusal is the evidence.
        let msgs = vec![
            said(1, "I can't execute shell commands in this environment."),
            said(2, "Please run this in your terminal: .\\make_shortcut.ps1"),
            user(3, "you have permission to run the necessary shell commands"),
        ];
        let f = run(&msgs);
        assert_eq!(f[0].evidence, vec![1, 3]);
        assert!(
            f[0].summary.starts_with("the user challenges the assistant's refusal (\"I can't execute"),
            "{}",
            f[0].summary
        );
        assert_eq!(keys(&[said(1, "I won't execute that command myself."), user(2, "why won't you run it?")]), vec![2]);
        // Stopped mid-way and told how it should be done.
        let msgs = vec![
            bash(1, "rg '| None' src", "src/risk.py:42: x: list | None = None"),
            Message { idx: 2, role: Role::User, origin: Origin::Interrupt, ..Message::default() },
            user(3, "python3 should point to python 3.11. Please make it so"),
        ];
        assert_eq!(keys(&msgs), vec![3]);
        // A conclusion that something is missing, corrected with where it is.
        let msgs = vec![
            said(1, "The M-Claude directory doesn't exist locally. Would you like me to clone it?"),
            user(2, "M-Claude is in the Documents folder"),
        ];
        assert_eq!(keys(&msgs), vec![2]);
    }

    #[test]
    fn other_languages() {
        let claim = "J'ai mis à jour config.toml, le serveur est maintenant configuré.";
        for (text, fires) in [
            ("le serveur linear n'apparaît toujours pas", true),
            ("es funktioniert immer noch nicht", true),
            ("sigue fallando con el mismo error", true),
            ("还是不行，报同样的错", true),
            // The same cues in Traditional Chinese, and a Traditional approval.
            ("還是不行，報同樣的錯", true),
            ("還是沒有出現內容", true),
            ("怎麼還是有錯？", true),
            ("是对的还是错的？", false),
            ("还是先改后端吧", false),
            ("可以，開始實施", false),
            ("還好，這樣就對了", false),
            ("まだ動かない", true),
            ("merci, parfait", false),
            ("可以，开始实施", false),
            ("ja, bitte als Nächstes das Gleiche für MicroCalc.Tui", false),
        ] {
            let got = keys(&[said(1, claim), user(2, text)]);
            assert_eq!(got.len() == 1, fires, "{text}: {got:?}");
        }
    }

    #[test]
    fn chinese_asks_and_hedges_in_either_script() {
        let claim = "已修復上傳功能。";
        // Output asked for only if a problem remains: a symptom after it is found; asked
        // for whatever happens, it is the report asked for.
        for (ask, fires) in [
            ("如果還有問題，請打開開發者工具查看控制台輸出，並告訴我具體的錯誤訊息。", true),
            ("如果还有问题，请告诉我具体的错误信息。", true),
            ("請打開開發者工具查看控制台輸出，並告訴我具體的錯誤訊息。", false),
            // 开发者工具 names the developer tools: no output is asked for.
            ("請打開開發者工具看一下。", true),
        ] {
            let msgs = vec![user(1, "上傳沒反應"), said(2, &format!("{claim}{ask}")), user(3, "上傳時出現錯誤")];
            assert_eq!(keys(&msgs).len() == 1, fires, "{ask}");
        }
        // A wish that mentions errors is a request, in either script.
        for wish in ["另外F12 的視窗還是要保留，有錯誤比較快知道", "另外希望保留错误提示的窗口"]
        {
            assert!(run(&[user(1, "上傳沒反應"), said(2, claim), user(3, wish)]).is_empty(), "{wish}");
        }
    }

    #[test]
    fn chinese_reports_without_a_failure_word() {
        let claim = "完成！我已經修復了兩個問題。現在保存條款功能應該可以正常工作！";
        for (text, fires) in [
            ("還是錯", true),
            ("改了又錯其他的", true),
            ("我也沒看到在哪裡有F12", true),
            ("有顯示添加成功, 但是 備註框 卻沒顯示出來", true),
            ("目錄目前點了右側不會跳到對應的內容", true),
            ("關於編號從2開始的問題 那你沒有檢查？", true),
            ("為什麼你改了這個然後 之前添加備註點開 中文字都會變亂碼？", true),
            ("有出現了, 但是為什麼這個display name 是亂碼？", true),
            ("可以了, 但是pdf 的解析還是空的", true),
            ("為什麼你常常編寫時會出現亂碼 這樣以後就不要再一直犯同樣的錯", true),
            // Garbled text with no contrast to the claim is a question about something
            // new; "right or wrong?" asks.
            ("為什這個裡面很多亂碼", false),
            ("是对的还是错的？", false),
        ] {
            assert_eq!(keys(&[said(1, claim), user(2, text)]).len() == 1, fires, "{text}");
        }
    }

    #[test]
    fn a_pointer_to_a_terminal_file_is_a_name_not_words() {
        let claim = said(1, "完成！我已經修復了兩個問題。");
        let turn = "@c:\\Users\\dana\\.cursor\\projects\\demo\\terminals\\1.txt:74-156 還是錯";
        assert_eq!(keys(&[claim.clone(), user(2, turn)]), vec![2]);
        let f = run(&[claim, user(2, turn)]);
        assert_eq!(
            f[0].summary,
            "the user pushes back after the assistant's \"我已經修復了兩個問題\" (1 message earlier): \"還是錯\""
        );
    }

    #[test]
    fn english_reports_without_a_failure_word() {
        let claim = "I've updated the wizard: the roster now shows the provider badges.";
        for (text, fires) in [
            ("The badges in the dialogue aren't consistent with what we show above the prompt box.", true),
            ("Clicking the save button does nothing.", true),
            ("Why is the roster still empty?", true),
            ("why do you keep adding borders to every box?", true),
            ("Is that your plan? And did you consider that the core needs its own chat view?", true),
            // Neutral questions and a request stay quiet.
            ("Is the roster still loading from the config?", false),
            ("Why not add the badges to the summary too?", false),
            ("Did you run the tests?", false),
            ("Can you make the badges match the header colours?", false),
        ] {
            assert_eq!(keys(&[said(1, claim), user(2, text)]).len() == 1, fires, "{text}");
        }
    }

    #[test]
    fn a_copied_checklist_is_the_assistant_s_words() {
        let analysis = said(
            1,
            "## 总结\n1. ✅ **目录位置错误**：需要改为左右分栏布局\n2. ✅ **编号格式问题**：需要显示所有层级并添加缩进\n**请确认这个分析是否正确，我现在可以开始修改了！**",
        );
        let copied = "✅ 目录位置错误：需要改为左右分栏布局\n✅ 编号格式问题：需要显示所有层级并添加缩进\n编号从 2 开始： 方案 1";
        assert!(run(&[analysis, user(2, copied)]).is_empty());
    }

    #[test]
    fn taking_the_assistant_s_offer_with_the_error_to_fix_is_no_pushback() {
        let offer = said(1, "2. **条款**：目前**可以**识别没有 # 的格式 ✅\n\n需要我现在修改吗？");
        let error = "DocumentReviewPage.tsx:352 Uncaught TypeError: l.getElementById is not a function\n    at onClick (DocumentReviewPage.tsx:352:52)";
        assert!(run(&[offer.clone(), user(2, &format!("可以就按照你的規劃修正\n{error}"))]).is_empty());
        assert!(run(&[offer, user(2, &format!("yes, go ahead\n{error}"))]).is_empty());
        // The same paste after work handed back is the work failing.
        let done = said(1, "已修復目錄跳轉 ✅ 現在可以測試了！");
        assert_eq!(keys(&[done, user(2, error)]), vec![2]);
    }

    #[test]
    fn the_next_item_of_a_list_is_a_new_task() {
        let claim = said(1, "完成！✅ Risk Count 顯示：修復後端方法調用，現在會顯示正確的風險數量");
        assert!(
            run(&[claim.clone(), user(2, "接下來 txt 文件是可以 解析 但是 pdf 跟 docx 都還不行, 上傳後內容都是空的")])
                .is_empty()
        );
        let badge = said(1, "Done. I fixed the Build Status badge link in the README.");
        assert!(
            run(&[badge.clone(), user(2, "Next, the PDF export doesn't work yet, look at the exporter.")]).is_empty()
        );
        // About what the message did, it is a report.
        assert_eq!(keys(&[badge, user(2, "Next: the badge still doesn't work.")]), vec![2]);
    }

    #[test]
    fn a_rule_or_the_intent_restated_after_a_hand_back_corrects_it() {
        let done = said(1, "Implemented exactly that: fail loudly, then fix the likely mismatch bug. Tests pass.");
        assert_eq!(keys(&[done.clone(), user(2, "never mask, alway fix")]), vec![2]);
        // Answering a choice the assistant put, or a rule with a long request, is not.
        let options = said(
            1,
            "The commit failed on signing.\n\n**Which would you like:**\n1. Commit without signing\n2. Fix gpg-agent\n\nThe key is ready.",
        );
        assert!(run(&[options, user(2, "never commit without signing. use ps GPG alt")]).is_empty());
        let long =
            "always run the formatter before you commit, and then add the release notes for 2.1 to the changelog";
        assert!(run(&[done, user(2, long)]).is_empty());
        let review = said(1, "Security review of src/auth.rs: two findings, both medium.");
        let scope = "all performance and security reviews are intended as FULL system review and analysis.";
        assert_eq!(keys(&[review, user(2, scope)]), vec![2]);
        let offer = said(1, "Security review of src/auth.rs: two findings. Want me to extend it to the vault?");
        assert!(run(&[offer, user(2, scope)]).is_empty());
    }

    #[test]
    fn the_result_pasted_with_how_it_should_look_corrects_it() {
        let done = said(1, "I've updated the wizard to include the provider markers in Step 3.");
        let screen = "So this:\n│ Step 3: Team Objective │\n│ Providers: [Claude Code] [Codex] │\n│ Referencing agents: @claude-coder, @writer │";
        let turn = format!("{screen}\nShould show the markers next to the corresponding agent.");
        assert_eq!(keys(&[done.clone(), user(2, &turn)]), vec![2]);
        // "also" extends the request; without a paste it is an instruction.
        let more = format!("{screen}\nIt should also show the model name.");
        assert!(run(&[done.clone(), user(2, &more)]).is_empty());
        assert!(run(&[done, user(2, "Should show the markers next to each agent.")]).is_empty());
    }

    #[test]
    fn a_redirect_after_a_denied_call_is_said_at_once() {
        let mut denied = bash(
            1,
            "npm run build && git add . && git commit -m fix",
            "[Operation Cancelled] Reason: User denied execution.",
        );
        denied.calls[0].result.as_mut().unwrap().interrupted = true;
        assert_eq!(keys(&[denied.clone(), user(2, "Please stop grouping build & commit")]), vec![2]);
        assert!(run(&[denied, user(2, "ok, continue with the docs")]).is_empty());
    }

    #[test]
    fn first_turn_counts_only_when_it_names_earlier_work() {
        assert_eq!(keys(&[user(1, "le mcp tools n'apparaît tjrs pas")]), vec![1]);
        assert_eq!(keys(&[user(1, "fix your startmenu shortcut, the window opens then closes quickly")]), vec![1]);
        assert!(keys(&[user(1, "my wifi is not working, please troubleshoot")]).is_empty());
    }

    #[test]
    fn work_called_done_sent_back_as_unfinished() {
        let staged = said(1, "All 6 reports created and staged for commit ✅. You can manually complete the commit.");
        assert_eq!(keys(&[staged.clone(), user(2, "complete the commit, always verify and run hooks.")]), [2]);
        let done = said(1, "I've completed issue #1 and opened PR #2.");
        let f =
            run(&[done.clone(), user(2, "Ensure that your pending tasks are complete, including spawning Claude.")]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].summary.starts_with("the user says the work is not finished after the assistant's"),
            "{}",
            f[0].summary
        );
        // Near misses: a next step the claim never spoke of; nothing was called done; a
        // question; an ordinary "make sure" instruction.
        assert!(keys(&[done.clone(), user(2, "Great. Now complete the docs page too.")]).is_empty());
        assert!(keys(&[done.clone(), user(2, "complete the docs page too")]).is_empty());
        let offered = said(1, "I scaffolded the GUI; 6 tests passed.\n\nNext steps (optional)\n- Add a rules dialog");
        assert!(keys(&[offered, user(2, "PLease complete the optional next steps")]).is_empty());
        let plan = said(1, "Shall I commit the reports next?");
        assert!(keys(&[plan, user(2, "complete the commit, and run the hooks")]).is_empty());
        assert!(keys(&[done.clone(), user(2, "Are your pending tasks complete?")]).is_empty());
        assert!(keys(&[done, user(2, "Make sure the tests are complete before the release.")]).is_empty());
    }

    #[test]
    fn near_misses() {
        let done = "Done. I added the Build menu and all 36 tests pass.";
        for text in [
            "continue",
            "yes",
            "looks good, thanks",
            "No, let's expand the firmware checks instead.",
            "no need to restart it",
            "Is it still running?",
            "If it still fails, revert the change.",
            "Add error handling for the failing upload case.",
            "yes, also we have a broken Build Status, can we solve that?",
            "Can you add a test for missing files?",
            "I don't see the point of a second menu.",
            "> all 36 tests pass\n\nGreat, now add the Help menu.",
        ] {
            assert!(keys(&[said(1, done), user(2, text)]).is_empty(), "{text}");
        }
        // "No" answering the assistant's question is an answer.
        assert!(
            keys(&[said(1, "Want me to add quick links to the Help menu?"), user(2, "No, add a status bar.")])
                .is_empty()
        );
        // A location the assistant asked for is a clarification.
        let asked = vec![
            said(1, "I couldn't find M-Gemini. Could you provide the full path to the repository?"),
            user(2, "the repo is located at \\Documents\\M-Gemini"),
        ];
        assert!(run(&asked).is_empty());
        // The person copying the assistant's own sentence is not their complaint.
        let quoted = vec![
            said(1, "What is still not covered: the broad fixed-wait cleanup is still not done."),
            user(2, "how do we fix\n - the broad fixed-wait cleanup is still not done."),
        ];
        assert!(run(&quoted).is_empty());
        // Not the person: injected text, a subagent's prompt.
        let injected = Message {
            idx: 2,
            role: Role::System,
            origin: Origin::Injected,
            text: "The build is still failing.".into(),
            ..Message::default()
        };
        let mut sidechain = user(3, "The build is still failing.");
        sidechain.sidechain = true;
        assert!(run(&[said(1, done), injected, sidechain]).is_empty());
        // A slash command's expanded template.
        let template = format!(
            "## User Input\n\nfix it\n\n## Outline\n\n{}It still fails when the script errors.",
            "Run the setup script and parse its JSON. ".repeat(40)
        );
        assert!(keys(&[said(1, done), user(2, &template)]).is_empty());
    }

    #[test]
    fn a_second_turn_on_the_same_answer_is_one_pushback() {
        let msgs = vec![
            said(1, "The fix is in: the run script should now work."),
            user(2, "it doesn't work"),
            user(3, "it still doesn't work, the same error"),
            said(4, "I see, the path was wrong. Fixed it."),
            user(5, "still broken"),
        ];
        assert_eq!(keys(&msgs), vec![2, 5]);
    }

    fn codex_ide(text: &str) -> String {
        format!(
            "# Context from my IDE setup:\n\n## Active file: src/app.tsx\n\n## Open tabs:\n- app.tsx: src/app.tsx\n- README.md: README.md\n\n## My request for Codex:\n{text}"
        )
    }

    #[test]
    fn the_ide_context_around_a_turn_is_not_the_person_s_words() {
        let msgs = vec![
            said(1, "Skills from the curated list: doc, pdf, figma. \u{201c}The professor\u{201d} isn't in this list."),
            user(2, &codex_ide("no, this should be an agent, a skill won't meet the need.")),
        ];
        assert_eq!(keys(&msgs), vec![2]);
        // Declining an offer stays quiet inside the wrapper too.
        let offer = said(1, "Found a strong match: HELP.md. Want me to open the full file?");
        assert!(
            run(&[offer, user(2, &codex_ide("No, just you have access is great. Apply it to every page."))]).is_empty()
        );
    }

    #[test]
    fn a_change_handed_back_is_a_claim_whatever_its_words() {
        let error = "[alden_chat_history_get] Command alden_chat_history_get not found";
        let edited = |text: &str| {
            vec![
                user(1, "the chat panel fails"),
                fixture::edit(2, "src/bridges/alden.ts"),
                said(3, text),
                user(4, error),
            ]
        };
        for close in ["Agreed, and enforced.", "Rebuilt the grid container to fill the available height."] {
            let f = run(&edited(close));
            assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![4], "{close}");
            assert!(f[0].summary.starts_with("the user pastes an error after the assistant's"), "{}", f[0].summary);
        }
        // An error line with a short remark of their own after it.
        let msgs = vec![
            fixture::edit(1, "src/bridges/alden.ts"),
            said(2, "Aligned and enforced."),
            user(
                3,
                "Error: [alden_get_props] Persona memory not initialized after bridge initialization\n\nand we're back to this.",
            ),
        ];
        assert_eq!(keys(&msgs), vec![3]);
        // Nothing changed in the turn (a review), or the edit came after its last words.
        let review = vec![user(1, "review the bridge"), said(2, "The bridge throws on every failure."), user(3, error)];
        assert!(run(&review).is_empty());
        let unfinished = vec![
            user(1, "fix the bridge"),
            said(2, "Patching the bridge."),
            fixture::edit(3, "src/bridges/alden.ts"),
            user(4, error),
        ];
        assert!(run(&unfinished).is_empty());
        // The person's prose mentioning a name is not a program's message.
        assert!(!ERROR_LINE.is_match("the command palette was not found useful"));
    }

    #[test]
    fn no_don_t_rejects_a_change_and_declines_an_offer() {
        let msgs = vec![
            fixture::edit(1, "src/bridges/alden.ts"),
            said(2, "Patched. The send path now returns a graceful fallback reply."),
            user(3, "NO, don't do that. A fake fallback message is stupid."),
        ];
        assert_eq!(keys(&msgs), vec![3]);
        let offer = vec![
            said(1, "The send path throws on a backend failure. Want me to add a fallback reply?"),
            user(2, "NO, don't do that. Just log it."),
        ];
        assert!(run(&offer).is_empty());
        // "no, don't worry" after a change is no rejection of it.
        let msgs = vec![
            fixture::edit(1, "src/bridges/alden.ts"),
            said(2, "Patched the send path."),
            user(3, "no, don't worry about the tests for now"),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn forbidding_a_change_to_the_file_just_edited_rejects_it() {
        let msgs = |text: &str| {
            vec![
                user(1, "create the agent"),
                fixture::edit(2, "/repo/README.md"),
                said(3, "Removed the agent section from README.md. Tell me where to put it."),
                user(4, text),
            ]
        };
        assert_eq!(keys(&msgs("Don't edit the README.md... It's README file not an EDITME file.")), vec![4]);
        // Another file, or an instruction about later work, is no rejection.
        assert!(run(&msgs("Don't edit the CHANGELOG.md, I keep it by hand.")).is_empty());
        assert!(run(&msgs("Never mind the README, create agents/professor.md")).is_empty());
    }

    #[test]
    fn an_error_naming_what_the_prescribed_command_runs_says_it_failed() {
        let gave = said(
            1,
            "`--target` takes a triple, not a folder.\n\nUse: `cargo build --release --manifest-path tools/gen/Cargo.toml --target x86_64-unknown-linux-gnu`",
        );
        let failed = "error: manifest path `tools/gen/Cargo.toml` does not exist";
        assert_eq!(keys(&[gave.clone(), user(2, failed)]), vec![2]);
        // Near misses: an error about something the command did not name; the same error
        // when the assistant asked for the output.
        assert!(run(&[gave, user(2, "error: manifest path `lib/Cargo.toml` does not exist")]).is_empty());
        let asked =
            said(1, "Run `cargo build --release --manifest-path tools/gen/Cargo.toml` and paste the output here.");
        assert!(run(&[asked, user(2, failed)]).is_empty());
    }

    #[test]
    fn ordering_out_what_was_just_put_in_a_file_undoes_it() {
        let turn = |asked: &str, text: &str| {
            vec![
                user(1, asked),
                fixture::edit(2, "/repo/docs/GUIDE.md"),
                said(3, "Added a Reviewer Persona section to GUIDE.md with the full persona text."),
                user(4, text),
            ]
        };
        let asked = "make a reviewer persona for this repo, the guide only describes the code";
        assert_eq!(keys(&turn(asked, "good grief, remove the persona from the GUIDE")), vec![4]);
        assert_eq!(keys(&turn(asked, "Delete that section from GUIDE.md.")), vec![4]);
        // Near misses: a removal from another file; tidying up what the person had asked
        // to be put in that file.
        assert!(run(&turn(asked, "remove the old persona from NOTES.md too")).is_empty());
        let put = "add a reviewer persona section to the GUIDE so I can try it";
        assert!(run(&turn(put, "ok, now remove the persona from the GUIDE")).is_empty());
    }

    #[test]
    fn a_challenge_needs_something_refused_or_handed_back() {
        let handed = said(
            1,
            "The commit failed because pr.md is in the session directory. To commit it, you need to:\n1. Change to the session directory.\n2. Run git add there.",
        );
        assert_eq!(keys(&[handed, user(2, "dont tell me what to do, do it yourself without asking")]), vec![2]);
        let found = said(1, "Found a strong match: HELP.md defines the help standard.");
        assert!(run(&[found, user(2, "just you have access is great, apply it everywhere")]).is_empty());
    }

    #[test]
    fn a_redirect_after_an_interrupt_is_said_at_once() {
        let stopped = |text: &str| {
            vec![
                bash(1, "cat WEEK_2_KICKOFF.md", "# Week 2"),
                Message { idx: 2, role: Role::User, origin: Origin::Interrupt, ..Message::default() },
                user(3, text),
            ]
        };
        assert_eq!(keys(&stopped("python3 should point to python 3.11. Please make it so")), vec![3]);
        let finding = "Critical Finding (P0)\nS1: NO AUTHENTICATION - the scan found zero auth headers. Any client can call it. This is deferred to Week 3.\n\nTrack B should apply the patch after their base Dockerfile.";
        assert!(run(&stopped(finding)).is_empty());
    }
}
