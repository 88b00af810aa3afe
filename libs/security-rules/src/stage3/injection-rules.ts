import type { Rule } from '../rule-scanner.ts';

/*
 * Stage 3: prompt injection, direct and indirect. Each rule is one facet of the phenomenon, not a
 * string of a corpus. The guiding question for every rule: would a benign memory (a fact, a
 * preference, a runbook step, an e-mail summary, a code note) ever say this? Words like "ignore",
 * "instructions", "system" or "act as" alone never fire; they must come with what makes them an
 * attack: an override of earlier instructions, a new identity for the reader, text addressed to
 * the model that reads it, a request to ship data out, a forged turn, a fake end of the input.
 * All patterns are RE2 (linear time). Gaps `[^.!?\n]{0,N}` keep a cue inside one sentence.
 */

const S = String.raw;

/**
 * A gap that stays inside one sentence (a dot inside "example.com" or "v1.2" does not end it).
 * Unbounded on purpose: a counted repetition {0,n} multiplies the DFA states RE2 needs and slows
 * every scan, while the sentence boundary already keeps the two cues together. `n` documents the
 * distance the cues are usually apart.
 */
const GAP = (_n: number) => `(?:[^.!?\\n]|[.!?][^\\s.!?])*`;

// Words for "instructions" in English, and the qualifiers that make them earlier ones.
const EARLIER = S`(?:previous|prior|preceding|above|earlier|former|foregoing|initial|original|old|system|given|existing|current|all\s+(?:the\s+)?(?:previous|prior|above|earlier))`;
const ORDERS = S`(?:instructions?|prompts?|directions?|directives?|orders?|commands?|guidelines?|assignments?|tasks?|rules|programming|training|constraints|context|conversation|messages?|text|input|information|content|documents?|articles?)`;
const STRONG_ORDERS = S`(?:instructions?|prompts?|directions?|directives?|orders?|commands?|guidelines?|assignments?|programming|system\s+prompt|thoughts)`;
const DISMISS = S`(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|override|overriding|bypass|drop|neglect|abandon|discard|delete|erase|remove|clear|leave|put\s+aside|set\s+aside|throw\s+away|pay\s+no\s+attention\s+to|stop\s+following|do\s+not\s+follow|don'?t\s+follow)`;
const AI = S`(?:ai|a\.i\.|assistant|llm|language\s+model|chat\s?bot|gpt|chatgpt|claude|gemini|copilot|model|agent|bot)`;
const OUTPUT = S`(?:response|reply|answer|output|message|summary|translation|completion|replies|responses|answers)`;
const SECRET_THING = S`(?:data|information|info|credentials?|passwords?|secrets?|api\s+keys?|keys|tokens?|cookies?|session|conversation|chat\s+(?:history|log)|history|context|memory|memories|system\s+prompt|prompt|instructions|user(?:'s)?\s+(?:data|information|details|files|messages|emails)|personal\s+(?:data|information|details)|contacts|address\s+book|files|documents|emails|messages|inbox|environment\s+variables|env\s+vars|logs?)`;
const DESTINATION = S`(?:https?://|www\.|ftp://|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]|\b[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn|info|biz|site|top|co)\b|webhook|endpoint|server|attacker|external|remote|third[\s-]party)`;

const OPEN_QUOTES = new Set(['"', "'", '\u201C', '\u2018', '\u00AB', '\u201E', '`']);
const CLOSE_QUOTES = new Set(['"', "'", '\u201D', '\u2019', '\u00BB', '\u201C', '`']);

/**
 * A phrase quoted as a phrase ('the phrase "ignore previous instructions" is a classic example') is a
 * mention, not an instruction: refused when an opening quote sits right before the match and a
 * closing quote within a few characters after it.
 */
function notQuotedMention(text: string, start: number, end: number) {
  const before = text[start - 1];
  if (before !== undefined && OPEN_QUOTES.has(before)) {
    for (let i = end; i < Math.min(text.length, end + 4); i++) {
      const c = text[i];
      if (c !== undefined && CLOSE_QUOTES.has(c)) return undefined;
    }
  }
  return { start, end };
}

/** "your reply to the auditor", "your message to the vendor": output addressed to a named person. */
function notAddressedToPerson(text: string, start: number, end: number) {
  const after = text.slice(end, end + 24).toLowerCase();
  if (
    /^\s+(?:to|for)\s+(?:the|a|an|our|their|your|my|his|her|them|him|us|customers?|clients?|vendors?|[a-z]+@)\b/.test(
      after,
    )
  ) {
    return undefined;
  }
  return notQuotedMention(text, start, end);
}

const rule = (
  type: string,
  pattern: string,
  caseSensitive = false,
  accept: Rule['accept'] = notQuotedMention,
): Rule => ({ category: 'injection', type, pattern, caseSensitive, accept });

export const INJECTION_RULES: readonly Rule[] = [
  // ---- system_override: cancel what came before, install new orders.
  rule(
    'system_override',
    S`\b${DISMISS}\s+(?:about\s+)?(?:(?:all|any|every|each|the|your|my|of|these|those|this|that)\s+){0,3}${EARLIER}\s+${ORDERS}`,
  ),
  rule(
    'system_override',
    S`\b${DISMISS}\s+(?:about\s+)?(?:(?:all|any|every|the|of)\s+){0,2}(?:your|the\s+system'?s?|the\s+developer'?s?)\s+${STRONG_ORDERS}`,
  ),
  rule('system_override', S`\b${DISMISS}\s+(?:all|any|every)\s+${STRONG_ORDERS}`),
  rule(
    'system_override',
    S`\b(?:ignore|disregard|forget)\s+(?:(?:all|everything|anything|what(?:ever)?\s+(?:i|we|you)\s+(?:have\s+)?(?:said|told\s+you|wrote|discussed|talked\s+about)|the\s+text|that)\s+)?(?:the\s+)?(?:above|before|previously|earlier|so\s+far|beforehand|till\s+now|until\s+now)(?:\s+(?:this|that|it))?\s*(?:[.,;:!?\n"]|\band\b|\bor\b|\bbut\b|\bnow\b|$)`,
  ),
  rule(
    'system_override',
    S`\bforget\s+(?:about\s+)?(?:everything|all(?:\s+of)?\s+(?:that|this|it|the\s+above))\b${GAP(40)}\b(?:before|above|said|told|discussed|so\s+far|previously|earlier)\b`,
  ),
  rule(
    'system_override',
    S`\b(?:ignore|disregard|forget)\s+(?:everything|all\s+(?:of\s+)?(?:this|that|the\s+above))\s+(?:and|&)\s+(?:just\s+|only\s+|instead\s+)?(?:say|output|print|write|tell|answer|respond|reply|do|show|repeat|translate)`,
  ),
  rule(
    'system_override',
    S`\byour\s+(?:new\s+)?(?:task|instructions?|job|role|goal|orders?)\s+(?:is|are)\s+now\b|\b(?:additional|new|extra|secret|hidden|real)\s+(?:instruction|statement|command|order)s?\s*[-:\x{2013}]`,
  ),
  rule(
    'system_override',
    S`\b(?:help\s+(?:me\s+)?with|challenge\s+for\s+you|task\s+for\s+you)\s*:?\s+(?:the\s+following|another|a\s+(?:new|further|different))\s+(?:task|challenge|assignment)\b|\bnew\s+challenge\s+for\s+you\b`,
  ),
  rule(
    'system_override',
    S`\b(?:your|the)\s+new\s+(?:task|tasks|instructions?|role|goal|objective|purpose|mission|directive|orders?|rules)\s*(?:is|are|will\s+be|:)`,
  ),
  rule(
    'system_override',
    S`\b(?:now|here)\s+(?:(?:come|comes|follow|follows|are|is)\s+)?(?:some\s+|a\s+few\s+|more\s+|further\s+|a\s+)?(?:new|further|additional|different|next)\s+(?:tasks?|instructions?|assignments?|orders?)\b|\bnew\s+(?:tasks?|instructions?|assignments?)\s+(?:follow|will\s+follow|are\s+as\s+follows)\b`,
  ),
  rule(
    'system_override',
    S`\b(?:focus|concentrate)\s+(?:now\s+|only\s+)?on\s+(?:your|the|this)\s+new\s+(?:task|assignment|instructions?)`,
  ),
  rule(
    'system_override',
    S`\b(?:new|updated|revised|additional|real|actual|true|secret|hidden)\s+(?:system\s+)?instructions?\s*:`,
  ),
  rule(
    'system_override',
    S`\b(?:override|bypass|disable|turn\s+off|deactivate|circumvent)\s+(?:(?:all|any|your|the|its)\s+){0,2}(?:safety|content|security|ethical|moral)?\s*(?:filters?|guardrails?|safeguards?|restrictions|protections?|policies|guidelines|alignment|censorship)\b`,
  ),
  rule(
    'system_override',
    S`\b(?:dan|god|jailbreak|jailbroken|unrestricted|unfiltered|evil)\s+mode\b|\bdeveloper\s+mode\s+(?:enabled|activated)\b|\bdo\s+anything\s+now\b|\bjailbreak(?:ing)?\s+(?:the\s+|this\s+)?(?:model|ai|assistant|llm|chatbot|prompt)`,
  ),
  rule(
    'system_override',
    S`\bwithout\s+(?:any\s+)?(?:ethical|moral|content)\s+(?:restrictions|guidelines|filters|limits|constraints)|\bno\s+(?:ethical|moral|programming)\s+(?:guidelines|restrictions|constraints|limits)\b|\b(?:ai|assistant|model|chatbot|llm)\s+(?:with\s+no|without\s+(?:any\s+)?)(?:rules|restrictions|filters|limits|guardrails)\b`,
  ),
  rule(
    'system_override',
    S`\b(?:stop|halt|abort)\s*[:!,.-]+\s*(?:now\s+)?(?:write|say|print|output|ignore|forget|answer|tell|show)\b`,
  ),
  rule(
    'system_override',
    S`\bdo\s+not\s+(?:answer|respond\s+to|summari[sz]e|translate|process|look\s+(?:at|in))\s+(?:this|the)\s+(?:question|text|email|e-mail|document|request|documents|articles?)${GAP(40)}\b(?:but|instead|just|only)\b`,
  ),
  // German, French, Spanish, Croatian/Serbian: the same overrides.
  rule(
    'system_override',
    S`\b(?:vergiss|vergessen\s+sie|ignorier(?:e|en)?(?:\s+sie)?|missachte|übergehe|verwirf)\s+(?:(?:alle|alles|die|den|das|deine|ihre|jetzt|nun|bitte|bisherigen|vorherigen|obigen|vorangehenden|vorangegangenen|früheren)\s+){0,4}(?:anweisungen|befehle|aufgaben|aufträge|angaben|ausführungen|instruktionen|informationen|vorgaben|regeln|davor|zuvor|bisher|gesagte|gesagt)`,
  ),
  rule(
    'system_override',
    S`\bvergiss\s+alles\b|\b(?:obigen|vorherigen|bisherigen)\s+(?:anweisungen|ausführungen|angaben)\s+(?:ignorieren|vergessen)|\b(?:neue|nächste)\s+aufgabe\s*:|\bdeine\s+neue\s+aufgabe|\b(?:alle|sämtliche)\s+(?:vorherigen|bisherigen|vorangegangenen|obigen)\s+(?:informationen|anweisungen|aufgaben|angaben|aufträge)\b|\babweichend\s+(?:zu|von)\s+(?:den\s+)?vorherigen\s+(?:instruktionen|anweisungen)`,
  ),
  rule(
    'system_override',
    S`\b(?:oubliez|oublie|ignorez|ignore)\s+(?:toutes?\s+)?(?:les\s+|vos\s+|tes\s+)?(?:instructions|consignes|directives)\b|\b(?:olvid(?:a|e|ar|en|es)|ignora)\s+(?:todo|todas?\s+las\s+instrucciones|las\s+instrucciones)\b|\bzaboravi\s+sve\b|(?:забудь(?:те)?|игнорируй(?:те)?)\s+(?:все|всё|предыдущие)`,
  ),

  // A task declared finished with praise, then a new one (the "completion" attack).
  rule(
    'system_override',
    S`\b(?:very\s+good|well\s+done|great|excellent|super|wow|perfect|sehr\s+gut(?:\s+gemacht)?|gut\s+gemacht)\b[^.!?\n]{0,40}[.!]\s*(?:that\s+is|that's|this\s+is|das\s+ist|das)\s+(?:done|enough|finished|complete|erledigt|genügt|reicht)\b|\b(?:attention|achtung|warning)\s*[-:!]+\s*(?:stop|stopp)\b`,
  ),
  rule(
    'system_override',
    S`\b(?:hilf\s+mir|deine\s+hilfe)\b${GAP(40)}\b(?:folgender|einer\s+weiteren|einer\s+neuen|der\s+nächsten)\s+aufgabe\b|\b(?:answer|respond|reply|antworte|beantworte)\b${GAP(60)}\b(?:in\s+the\s+style\s+of|im\s+stile?\s+(?:eines|einer|eine))\b`,
  ),

  // ---- role_manipulation: give the reader a new identity.
  rule(
    'role_manipulation',
    S`\b(?:pretend|imagine|suppose)\s+(?:that\s+)?(?:you\s+are|you're|to\s+be|you\s+can|you\s+have|you\s+were)\b`,
  ),
  rule(
    'role_manipulation',
    S`\b(?:i\s+want\s+you\s+to|i\s+need\s+you\s+to|you\s+(?:will|should|must|shall)|please|now|from\s+now\s+on,?)\s+(?:act|behave|respond|answer|reply|speak|talk|pose)\s+(?:as\s+(?:if|though|an?\b|the\b|my\b)|like\s+an?\b)`,
  ),
  rule(
    'role_manipulation',
    S`\b(?:act|behave|function|serve)\s+as\s+(?:an?|my)\s+(?:[\w-]+\s+){0,2}(?:interpreter|terminal|console|shell|translator|chatbot|character|persona|debater|storyteller|screenwriter|interviewer|dj|journalist|hacker|jailbreak|dan|linux|unrestricted|evil|uncensored)\b`,
  ),
  rule(
    'role_manipulation',
    S`(?:^|[.!?:;\n]\s*)(?:You\s+are|YOU\s+ARE|Du\s+bist|DU\s+BIST)\s+(?:now\s+|jetzt\s+|nun\s+)?[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?\s*[.,!?:]|(?:^|[.!?:;\n]\s*)(?:Now|Ok(?:ay)?[,.]?\s+now|From\s+now\s+on,?)\s+you\s+are\s+(?:an?\s+|the\s+)?[A-Z][a-z]+`,
    true,
  ),
  rule(
    'role_manipulation',
    S`\byou\s+are\s+now\s+(?:an?\s+|the\s+|my\s+|going\s+to\b|no\s+longer\b|free\b|unrestricted\b|jailbroken\b|(?:dan|stan|dude)\b|in\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode)`,
  ),
  rule(
    'role_manipulation',
    S`\byou\s+(?:must|will|shall)\s+now\s+(?:act|be|behave|pretend|respond|answer|reply|ignore|forget|obey|only|speak|talk|follow\s+(?:my|these|the\s+new))\b|\bfrom\s+now\s+on,?\s+you\s+(?:will|must|are|shall)\s+(?:act|be|behave|pretend|respond|answer|reply|ignore|forget|obey|only|speak|talk|going\s+to\s+act|an?\b)`,
  ),
  rule(
    'role_manipulation',
    S`\b(?:role[\s-]?play(?:ing)?|roleplay)\s+(?:as|with)\b|\byou\s+are\s+(?:role[\s-]?playing|playing\s+the\s+role)\b|\b(?:stay|stays|remain|remains)\s+(?:\w+\s+)?in\s+(?:character|(?:your|their|the)\s+roles?)\b|\b(?:bleiben|verharren|bleibt)\s+(?:\w+\s+){0,2}in\s+ihren\s+rollen\b|\b(?:never|don'?t|do\s+not|without)\s+(?:ever\s+)?(?:break|breaking|falling\s+out\s+of)\s+(?:out\s+of\s+)?(?:character|(?:your|their|the)\s+roles?)\b`,
  ),
  rule(
    'role_manipulation',
    S`\b(?:stell\s+dir\s+vor|tu\s+so),?\s+(?:als\s+ob\s+)?du\s+(?:bist|wärst)\b|\b(?:jetzt|nun)\s+bist\s+du\b|\bdu\s+bist\s+(?:jetzt|nun|ab\s+sofort)\b|\bich\s+möchte,?\s+dass\s+(?:sie|du)\s+als\b${GAP(100)}\b(?:fungieren|agieren|auftreten|handeln)`,
  ),
  rule('role_manipulation', S`\blet'?s\s+play\s+a\s+game\s+(?:where|in\s+which)\s+you\b`),

  // ---- data_exfiltration: get data or the prompt out.
  rule(
    'data_exfiltration',
    S`\bexfiltrat(?:e|ing)\s+(?:(?:the|all|any|this|these|your|my|our)\s+)?(?:\w+\s+)?(?:data|credentials|secrets|keys|tokens|files|information|it|them|everything)\b`,
  ),
  rule(
    'data_exfiltration',
    S`\b(?:send|forward|post|upload|transmit|email|e-mail|mail|leak|copy|submit|report|sync|push|beacon)\s+(?:(?:all|any|every|the|this|these|those|your|my|our|their|his|her|its|of)\s+){0,3}(?:\w+\s+){0,2}${SECRET_THING}\b${GAP(80)}\b(?:to|at|into|via|using)\s+${DESTINATION}`,
  ),
  rule(
    'data_exfiltration',
    S`\b(?:reveal|show|print|display|output|repeat|disclose|leak|dump|give\s+me|tell\s+me|write\s+(?:out|down)|spell[\s-]?check)\s+(?:me\s+)?(?:(?:all|the|your|of|full|entire|whole|complete|exact|initial|original|hidden|secret)\s+){0,4}(?:system\s+prompt|prompt(?:[\s-]texts?)?|instructions\s+(?:you\s+(?:were|have\s+been)\s+given|above)|initial\s+instructions|(?:text|prompt)\s+above|(?:above|previous)\s+prompt|embeddings)`,
  ),
  rule(
    'data_exfiltration',
    S`\bwhat\s+(?:is|was|were|are)\s+(?:written\s+)?(?:at\s+the\s+beginning\s+of\s+)?(?:your|the|this)\s+(?:initial\s+|original\s+|system\s+|first\s+)?(?:instructions|prompt|system\s+prompt)\b(?:\s+above)?|\bwhat\s+(?:is|was)\s+written\s+above\b|\btell\s+me\s+(?:what\s+)?your\s+(?:initial\s+|original\s+)?instructions\b`,
  ),
  rule(
    'data_exfiltration',
    S`!\[[^\]\n]{0,100}\]\(https?://[^)\s]{1,300}[?&][^)\s=]{1,40}=[^)\s]{0,200}(?:\{|%7B|\$|<)`,
  ),
  rule(
    'data_exfiltration',
    S`\b(?:append|include|add|encode|put)\s+(?:(?:the|all|any|this|your|user's|user)\s+){0,2}(?:\w+\s+){0,2}${SECRET_THING}${GAP(40)}\b(?:to|in|into)\s+(?:the\s+|a\s+)?(?:url|link|query\s+string|image\s+(?:url|link|source)|request)\b`,
  ),
  rule(
    'data_exfiltration',
    S`\b(?:zeige?|zeig'?|gib|verrate|drucke?)\s+(?:mir\s+)?(?:alle\s+|deine\s+|den\s+|die\s+){0,3}(?:prompt-?texte?|anweisungen|eingabeaufforderung)\b|\bdrucken\s+sie\s+die\s+obige\s+eingabeaufforderung`,
  ),

  // ---- indirect_instruction: text inside a document, e-mail or tool output that speaks to the
  // model processing it (BIPIA-style attacks), or redirects its answer.
  rule(
    'indirect_instruction',
    S`\b(?:if|when|whenever)\s+you\s+are\s+(?:an?\s+)?(?:ai|a\.i\.|artificial\s+intelligence|assistant|llm|large\s+language\s+model|language\s+model|chat\s?bot|gpt)\b|\b(?:attention|note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?${AI}s?\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing)\b|\b(?:ai|a\.i\.|assistant|llm|language\s+model|chat\s?bot|gpt|chatgpt)s?\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing)\s+this\b`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:add|include|insert|integrate|incorporate|append|inject|embed|put|place|modify|alter|change|augment|enhance|enrich|rewrite|render|format|use|provide|give|write|replace|convert|substitute|transform|remove|delete|strip|omit|group|combine|merge|scramble|jumble|rearrange|shuffle|misspell|introduce|anagram|translate|encode|encrypt|reverse|capitali[sz]e|uppercase|end|begin|start|finish|conclude|sign|close|mention|state|tease|hint|suggest|recommend|promote|advertise|express|stress|emphasi[sz]e|highlight|encourage|invite|urge|ask|tell|direct|redirect|link|point|offer|stop|refuse|respond|reply|answer)\b${GAP(120)}\b(?:in|to|into|within|throughout|from|of|at|on|with|for|by)\s+(?:(?:all|each|every|the|this)\s+)?(?:your|ur)\s+(?:(?:next|final|future|every|entire|whole|own)\s+)?${OUTPUT}\b`,
    false,
    notAddressedToPerson,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:modify|alter|augment|enhance|enrich|rewrite|render|reformat|scramble|jumble|rearrange|shuffle|misspell|anagram|encode|encrypt|reverse|substitute|transform|conclude|end|begin|start)\s+(?:all\s+|each\s+|every\s+)?(?:of\s+)?(?:your|ur)\s+${OUTPUT}\b|\b(?:provide|give|write|deliver|present|format)\s+(?:all\s+|each\s+)?(?:your|ur)\s+${OUTPUT}\s+(?:using|with|without|in\s+(?:the\s+)?(?:form|style|format|language)|as\s+an?)\b`,
    false,
    notAddressedToPerson,
  ),
  rule(
    'indirect_instruction',
    S`(?:^|[.!?:;\n]\s*|\s\s)(?:in|within|throughout|for|at\s+the\s+(?:end|start|beginning)\s+of)\s+(?:all\s+|each\s+|every\s+)?(?:your|ur)\s+(?:next\s+|future\s+)?${OUTPUT}s?\s*,`,
  ),
  rule(
    'indirect_instruction',
    S`\byour\s+${OUTPUT}(?:'s)?\s+(?:must|should|shall|has\s+to|needs?\s+to)\s+(?:include|contain|start|begin|end|mention|say|be\s+(?:written|in|formatted))\b|\b(?:respond|reply|answer)\s+(?:only\s+)?(?:with|using)\s+["“'\x60]`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:following|subsequent|below|above|this|provided)\s+(?:python\s+|javascript\s+|bash\s+|shell\s+)?(?:code|script)\s+(?:block|snippet|excerpt|section|fragment|segment|sample)?${GAP(120)}\b(?:your|ur)\s+(?:code|codebase|solution|implementation|algorithm|program|script|answer|response|reply|elucidation|output|logic)\b`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:following|subsequent|below)\s+code\s+(?:block|snippet|excerpt|section|fragment|segment)[^\n]*\n\s*\x60\x60\x60[^\x60]*?(?:requests\.(?:post|get|put)|urllib|urlopen|socket\.|smtplib|ftplib|paramiko|http\.client|subprocess|os\.system|os\.remove|os\.environ|shutil\.|wget|curl\s)`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:your|ur)\s+(?:code|codebase|solution|implementation|algorithm|program|response|answer|reply)\b${GAP(80)}\b(?:with|by\s+(?:adding|including|integrating|incorporating|featuring))\s+(?:the\s+)?(?:following|subsequent|below)\s+(?:code|script|snippet)`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:and|but|then)\s+instead,?\s+(?:you\s+(?:should|must|will)\s+|just\s+|only\s+|please\s+)?(?:say|print|output|write|respond|reply|answer|tell|translate|summari[sz]e|return|display|show|repeat)\b|(?:^|[.!?:;\n]\s*)instead,?\s+(?:just\s+|only\s+|please\s+)?(?:say|print|output|respond|reply|answer\s+with|tell\s+me|repeat)\b`,
  ),
  rule(
    'indirect_instruction',
    S`(?:^|[.!?:;\n]\s*|\b(?:just|only|simply|now|and|then|please)\s+)(?:say|print|output|repeat|write|reply|answer)\s+(?:only\s+|just\s+|exactly\s+|back\s+|out\s+)?(?:with\s+)?(?:the\s+(?:word|phrase|text|sentence)\s+)?["“„]`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:answer|respond|reply)\s+(?:by|from|with|using|according\s+to)\s+your\s+own\s+knowledge\b|\b(?:ignore|disregard|disregarding|ignoring|without\s+(?:using|looking\s+at|consulting))\s+(?:(?:all|the|any)\s+){0,2}(?:provided|given|supplied|above|attached|retrieved)\s+(?:context|documents?|articles?|sources|texts?|information|data)\b|\bnot\s+(?:by|from|according\s+to)\s+the\s+(?:provided\s+)?(?:articles?|documents?|context|sources)\b|\b(?:disregarding|ignoring)\s+(?:all\s+)?the\s+(?:articles?|documents?|sources|context)\b`,
  ),
  rule(
    'indirect_instruction',
    S`\b(?:say|print|tell\s+(?:me|them|the\s+user)|state|write|output)\s+(?:that\s+)?(?:you\s+(?:hate|love|are|support)|(?:[A-Z][a-z]+\s+){0,2}is\s+the\s+(?:best|worst|greatest|most))\b`,
  ),

  rule('indirect_instruction', S`\brepeat\s+after\s+me\b|\bsprich\s+mir\s+nach\b`),
  // A writing task planted in content: memories state facts, they do not commission poems.
  rule(
    'indirect_instruction',
    S`(?:^|[.!?:;\n]\s*|\s\s)(?:please\s+)?(?:write|draft|compose|create|generate|develop|produce|provide|craft|pen)\s+(?:me\s+|us\s+)?(?:an?|one|the)\s+(?:(?:short|brief|long|funny|heartfelt|persuasive|compelling|catchy|flaming)\s+)?(?:poem|story|essay|speech|song|haiku|limerick|joke|manifesto|plea|rap|sonnet|tweet|slogan|ode|fable|fairy\s+tale|introduction\s+for\s+an\s+essay)\b|(?:^|[.!?:;\n]\s*|\s\s)translate\s+the\s+following\s+(?:sentence|text|phrase|paragraph|word)s?\s+(?:to|into)\b`,
  ),

  // ---- fake_turn: forged chat turns and chat-template tokens.
  rule(
    'fake_turn',
    S`<\|(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\|>|\[/?INST\]|<</?SYS>>|</?(?:system|assistant)>`,
  ),
  rule(
    'fake_turn',
    S`(?:^|\n)\s*(?:#{1,4}\s*|\[|\*\*)?(?:system|assistant|ai|gpt|chatgpt)(?:\s+(?:message|prompt|note|override))?\s*(?:\]|\*\*)?\s*:\s*(?:you\s+(?:are|must|will|should)|ignore|disregard|forget|from\s+now|new\s+instructions|the\s+user|i\s+(?:will|must)\s+now|sure[,!]?\s+(?:here|i)|ok(?:ay)?[,!]\s+i\s+will)`,
  ),
  rule(
    'fake_turn',
    S`(?:^|\n)\s*(?:human|user)\s*:\s*(?:human|user)\s*:|(?:^|\n)\s*(?:human|user)\s*:[^\n]{0,200}\n\s*(?:assistant|ai)\s*:`,
  ),

  // ---- delimiter_attack: a fake end of the input or of the document, then new content.
  rule(
    'delimiter_attack',
    S`(?:={3,}|-{3,}|#{3,}|\*{3,}|_{3,}|~{3,})\s*(?:end|stop|ende)\s*(?:of\s+(?:the\s+)?(?:user\s+|system\s+)?(?:prompt|instructions?|context|input|document|text|conversation|data|email|message)\b|[.!:]|={2,}|-{2,}|$)|\b(?:end|ende)\s+(?:of\s+)?(?:the\s+)?(?:user\s+)?(?:input|prompt|instructions|context|document|email|e-mail|text|data|conversation|system\s+prompt)\s*(?:={2,}|-{2,}|#{2,}|\]|>|\*{2,})`,
  ),
  rule('delimiter_attack', S`(?:\\\s?n\s*){4,}`),
  rule(
    'delimiter_attack',
    S`</\s*(?:context|document|email|data|user_input|input|instructions|untrusted|tool_output|search_results?)\s*>${GAP(200)}\b(?:you|ignore|now|new|instead|please|system)\b`,
  ),
];
