"""The words a skill may write capitalised without being taken for a name.

Anything that looks like a name (a capitalised word anywhere, a word in capitals) is
scrubbed from a skill unless it is here, in the agent type's own words, or a tool's
name. The list is short on purpose: the words that begin the sentences of procedures
and of requests ("When", "Search", "Please"), the acronyms procedures use ("API",
"SMTP"), the calendar and the big mail providers (an address at gmail.com names its
owner by the part before the @, not by "gmail"). A capitalised word inside a sentence is
a name even when it is here ("ask Will"), except the calendar's, the providers' and
acronyms written in capitals.

These lists are also part of the general words (skills/words.py): the only words, with
the type's own, that a shared skill may hold at all.
"""

CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march "
    "april may june july august september october november december".split()
)
PROVIDERS = frozenset(
    "gmail googlemail google outlook hotmail live msn microsoft yahoo icloud apple me aol "
    "proton protonmail pm gmx web yandex zoho fastmail mail".split()
)
ACRONYMS = frozenset(
    "api apis smtp imap pop http https url urls uri json xml html csv pdf pdfs txt sql "
    "id ids ui ux cli sdk os ok asap fyi eta faq cc bcc re fw fwd rsvp tbd n/a utc gmt "
    "est pst cet am pm ai llm otp sms mfa sso crm erp hr it pr vip ceo cto cfo qa io "
    "ip dns ssl tls ssh vpn oauth jwt rest rss mime ics zip png jpg jpeg gif svg mp3 "
    "mp4 yaml toml ini md".split()
)
WORDS = frozenset(
    # sentence starters and function words
    "a an the and or but nor so yet if then else when whenever while where wherever "
    "whether which who whom whose what why how because since until unless once after "
    "before during for from to of in on at by with without within into onto over "
    "under about above below between through across against along around per via "
    "as than like also only just even still already always never often usually "
    "sometimes again first second third next last finally otherwise instead meanwhile "
    "however therefore thus note tip warning important caution example e.g i.e etc "
    "i you he she it we they me him her us them my your his its our their this that "
    "these those there here each every all any some none no not both either neither "
    "other another such same more most less least many much few several one "
    "is are was were be been being am do does did done doing have has had having "
    "will would shall should can could may might must need needs let lets "
    # greetings and answers that begin turns
    "hi hello hey dear thanks thank please yes yeah ok okay sure great good fine "
    "sorry welcome best regards cheers "
    # what procedures do
    "use using used call calls called run runs check checks checked confirm confirms "
    "verify make makes keep find finds found search searches searching look get gets "
    "fetch list lists read reads open opens write writes draft drafts compose reply "
    "replies respond answer send sends sent forward forwards share shares attach "
    "attaches save saves store create creates update updates edit change changes set "
    "add adds remove removes delete deletes archive archives move moves copy label "
    "labels tag tags mark marks filter filters sort sorts group merge split schedule "
    "schedules book books cancel cancels reschedule invite invites accept decline "
    "remind reminds notify notifies ask asks tell tells summarize summarise summarizes "
    "summarises review reviews try tries retry retries wait waits stop start starts "
    "begin end finish finished complete completed succeed succeeded fail fails failed "
    "avoid skip include exclude prefer pay log post publish upload download export "
    "import sync convert translate format parse extract compare count select choose "
    "pick resolve fix handle ensure include show give take go follow repeat return apply "
    "applies click enter type submit paste press navigate visit close login sign log "
    "install configure connect test tests look looks prepare plan collect gather note "
    # what procedures are about
    "user users recipient recipients sender senders person people contact contacts "
    "team customer customers client clients manager owner email emails mail message "
    "messages thread threads inbox outbox folder folders subject body signature "
    "attachment attachments link links file files document documents doc docs report "
    "reports invoice invoices receipt order orders payment payments account accounts "
    "meeting meetings event events calendar invitation appointment call calls task "
    "tasks reminder reminders note notes list item items entry entries record records "
    "date dates time times day days week weeks month months year years today tomorrow "
    "yesterday morning afternoon evening night deadline address addresses phone number "
    "numbers name names title status result results error errors response request "
    "requests query queries tool tools step steps procedure approach option options "
    "setting settings page pages post posts tweet tweets channel channels chat "
    "comment comments project projects issue issues ticket tickets summary summaries "
    "draft template templates table row rows column columns field fields value values "
    "data details detail info information source sources target format version "
    "always first new old latest recent previous current original full empty "
    "important urgent private public internal external local remote default "
    # irregular forms the dictionary does not inflect
    "okay info held paid began became heard feet women men children has box hang proud "
    "earlier larger largest greater greatest favourite programme theatre centre "
    # placeholders the scrubber writes
    "secret email url handle number name address".split()
)
# Today's words the dictionary of skills/words.py (1934) lacks; their inflections count too.
MODERN = frozenset(
    "online offline website webpage homepage internet app login logout username password "
    "wifi smartphone laptop desktop blog download upload inbox email newsletter database "
    "spreadsheet checklist shortcut keyword voicemail startup workflow dashboard hashtag "
    "screenshot timeline metadata bandwidth backup chatbot playlist podcast bluetooth "
    "browser webhook webinar unsubscribe subscriber signup checkout cookie autoreply "
    "autocomplete plugin firewall hyperlink smartwatch teammate coworker onboarding "
    "offboarding username timestamp timezone weekday weekend dropdown popup sidebar "
    "toolbar tooltip workspace".split()
)
ALLOWED = CALENDAR | PROVIDERS | ACRONYMS | WORDS | MODERN
# Numerals of other languages: a run of three of them is a number (a phone number said
# in words), as `nine one two` is.
NUMBER_WORDS = (
    "null eins zwei drei vier fünf funf sechs sieben acht neun zehn elf zwölf zwolf "
    "cero uno una dos tres cuatro cinco seis siete ocho nueve diez once doce "
    "zéro zero un deux trois quatre cinq six sept huit neuf dix onze douze "
    "um duas três tres quatro sete oito nove dez "
    "due tre quattro cinque sei sette otto nove dieci "
    "een twee drie vier vijf zes zeven acht negen tien"
).split()
CJK_NUMERALS = frozenset("〇零一二三四五六七八九十百千万萬壹贰貳叁參肆伍陆陸柒捌玖拾")
