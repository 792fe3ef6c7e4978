package offline

import (
	"github.com/switchboard/switchboard/kb/words"
	"strings"
)

// The thesaurus. People ask in their own words and documents answer in the
// company's: "How long do we hold on to CVs?" is answered by a table row
// "Job applicant data | Kept for 6 months". Offline, the only bridge
// between the two is a table of the words that stand for each other in the
// everyday vocabulary of companies: money, people, time off, travel,
// accounts and devices, support and incidents.
//
// The rewriter adds a keyword's synonyms to a query, the grader and the
// generator accept a synonym as a match for the word (the generator and
// the answer check at three quarters of its weight), so an entry must be a
// word a document could plausibly use for the same thing in a company
// handbook or policy — not a related topic. Entries are general English
// usage, never the wording of one document.

// synonymGroups holds groups of interchangeable words and phrases, one
// group a line, comma-separated: every member stands for every other. A
// word may be in several groups (one per sense); its synonyms are the
// union. Phrases are matched when all their words occur, and a question's
// phrase ("sign up", "time off") is read as one keyword. Lines starting
// with # are headings.
const synonymGroups = `
# Money: prices, pay and refunds
refund, reimbursement, money back, repayment, pay back, paid back
reimburse, refund, pay back, paid back, repay, compensate
price, cost, fee, charge, rate
cost, expense, spending, expenditure
spend, spending, expense
salary, pay, wage, wages, compensation, earnings, remuneration
paycheck, paycheque, payslip, pay stub, payroll, salary payment, pay period
raise, pay rise, pay increase, salary increase
deduction, deduct, withhold, withholding, come out of, taken out of
bonus, incentive, reward
discount, cheaper, reduced price, lower price, rebate
allowance, stipend, per diem, subsidy, budget
claim, submit, file, request
invoice, bill, billing
buy, purchase, purchasing
gift, present
money, cash, funds
payout, payment, lump sum
fine, penalty
free, no charge, no cost, free of charge, complimentary
prorated, pro rata, proportional, partial
fee, surcharge
tax, taxes, vat

# Customers, vendors and contracts
customer, client
supplier, vendor, provider
reseller, distributor, retailer
contract, agreement
subscription, plan
cancel, terminate, cancellation, termination, want out, opt out, end the contract
renew, renewal, extend, extension
upgrade, move up
downgrade, move down

# People and roles
employee, staff, worker, personnel, team member, staffer
contractor, freelancer, consultant
intern, trainee
coworker, colleague, teammate, co-worker
manager, supervisor, boss, team lead, line manager
lead, run, host, chair, facilitate
director, head of
owner, responsible, in charge
hr, human resources, people ops, people operations, people team
it department, it support, it team, helpdesk, help desk, service desk
finance, accounting
legal, lawyer, counsel
ceo, chief executive
coo, chief operating officer
cfo, chief financial officer
cto, chief technology officer

# Hiring, careers and leaving
hire, recruit, recruitment, hiring
new hire, new employee, newcomer, new joiner, new starter
job, role, position, vacancy, opening
applicant, candidate, cv, resume, job application
interview, screening
onboarding, orientation, induction
offboarding, exit
promotion, promoted, advancement, career progression
performance review, appraisal, evaluation, assessment
feedback, input
title, job title, level
junior, entry level
senior, experienced
probation, probationary period, trial period
fire, dismiss, let go, lay off, laid off
layoff, lay off, laid off, redundancy, redundant, severance
quit, resign, resignation, hand in notice
retire, retirement
last day, final day, last working day

# Time off
vacation, holiday, pto, paid time off, annual leave, time off, days off, leave
leave, time off, absence
sick, illness, sick leave, sick day, unwell
funeral, bereavement, death, died, passed away
parental leave, maternity leave, paternity leave, family leave
pregnancy, pregnant, expecting
childbirth, birth, giving birth, delivery of a baby
adoption, adopt, adopted
caregiver, carer, caretaker
sabbatical, career break
jury duty, jury service
public holiday, bank holiday, national holiday, local holiday
overtime, extra hours

# Benefits
disability, disabled, disability insurance
injury, injured, hurt
baby, newborn, infant
marriage, married, marry, wedding
medicine, medication, prescription
mental health, therapy, counselling, counseling
shift, rota, roster
benefit, perk
pension, retirement, 401k, retirement plan, retirement savings
top up, match, contribute, contribution
health, medical, healthcare, health care
doctor, physician, gp
dentist, dental
glasses, eyewear, vision
insurance, coverage, insured
enroll, enrol, enrollment, enrolment, sign up, register, registration
switch, change, swap
conference, summit, convention
anniversary, work anniversary, years of service
tenure, seniority, length of service, years of service
equity, shares, stock, stock options
profit sharing, profit share
accumulate, build up, accrue, accrual, max out
pet, pets, animal

# Where and how we work
remote, work from home, wfh, telecommute, remotely, work from anywhere
office, workplace, headquarters, hq
coworking, co-working, shared office, coworking space, shared workspace
desk, workstation
furniture, chair, desk
move, relocate, relocation
hours, working hours, work hours, office hours, business hours
schedule, calendar, timetable
side job, side gig, side project, side business, freelance, freelancing, second job, outside work
conflict of interest, competing interest
board, board of directors, board seat
advisor, adviser, consultant
meeting, call, sync
meetup, meet-up, meet up, get-together, get together, gathering, offsite, retreat
all hands, all-hands, company-wide meeting, company wide, town hall
check-in, check in, status update, stand-up, standup
presentation, talk, demo
announcement, update, news

# Notices, approvals and rules
talk, discuss, discussion, debate, conversation
contact, reach out, get in touch
email, e-mail, mail
eligible, eligibility, qualify, entitled
start, begin, commence, kick off
increase, raise, go up
decrease, reduce, lower, cut
problem, issue, trouble
mistake, by mistake, accidentally, accidental, by accident
overdue, past due, unpaid
notice, heads-up, heads up, notify, inform, warn, advance notice, let know
ahead, in advance, beforehand, advance
approval, approve, permission, sign off, sign-off, authorization, authorisation, go-ahead, permit
allowed, permitted
forbidden, prohibited, banned, not allowed
mandatory, compulsory, obligatory, required
optional, voluntary
rule, guideline, regulation
exception, exemption, waiver
deadline, due date, cutoff, cut-off
harassment, bullying, discrimination
misconduct, wrongdoing
disciplinary, discipline, sanction
complaint, grievance
confidential, secret, private
consent, agree

# Devices, accounts and security
laptop, computer, notebook, workstation
phone, mobile, smartphone, cell phone, mobile phone
device, gadget
tablet, ipad
headphones, headset
password, passphrase, passcode, credential
login, log in, sign-in, sign in, logon, access, account, credentials
token, key, api key, secret, credential
rotate, rotation, renew, refresh, regenerate
reset, change
deactivate, revoke, disable, suspend, switch off, turn off, shut off, cut off, block
activate, enable, turn on, switch on
remove, delete, erase, purge, wipe, deletion, removal, get rid of
lost, lose, losing, misplace, misplaced, missing
stolen, steal, theft, robbed
damaged, broken, cracked
verification, authentication, two-factor, 2fa, mfa, multi-factor
encrypt, encryption, encrypted
update, patch, upgrade
lock, locked, lock screen
virus, malware
phishing, scam, fraudulent email
breach, leak, data breach, compromised, exposed
privacy, data protection
vpn, virtual private network
wifi, wi-fi, wireless
software, application, app, tool
install, set up, setup, installation

# Data and records
keep, retain, hold, hold on, store, preserve, retention, save
backup, back up, snapshot
archive, archived
history, log, record, records
export, download
import, upload
location, site, premises
region, data center, datacenter
measurement, reading, sensor reading, data point
report, reporting
dashboard, console, portal, control panel
chart, graph, dashboard, plot
monitor, monitoring, observability
server, host
error, exception, crash

# Support and service levels
support, help, assistance
ticket, case, support request
alarm, alert, notification, warning
availability, uptime, up time
promise, commitment, guarantee, pledge, commit
outage, downtime, down time, incident, disruption, interruption, unavailable
maintenance, upkeep, servicing
planned, scheduled, announced
urgent, critical, emergency, severe
major, serious, significant
priority, severity
respond, response, reply, get back, acknowledge, acknowledgement, answer
resolve, resolution, fix, solve
escalate, escalation
broken, faulty, defective, defect, fault, not working, stopped working, malfunction, failing, fails, died, dead
warranty, guarantee
repair, fix, mend
replace, replacement, swap, exchange, change
return, send back, ship back
shipping, postage, delivery, freight
arrive, arrival, delivery, delivered, received
packaging, box, original box

# Periods
annual, yearly, annually, per year, every year
monthly, per month, each month, every month
weekly, per week, each week, every week
daily, per day, each day, every day
quarterly, every quarter, each quarter, every three months
biweekly, every two weeks, fortnightly
nightly, every night, each night
immediately, at once, right away, straight away

# Travel
travel, trip, journey, business trip, travelling, traveling
taxi, cab, ride-hailing, rideshare, ride hailing
public transport, public transit, transit
train, rail
car, vehicle, automobile
rental car, car rental, hire car
mileage, kilometre, kilometer, km, miles
parking, park
personal vehicle, own car, private car
hotel, accommodation, lodging
flight, airfare, air travel, flying, fly, plane, airplane
economy, coach
luggage, baggage, bags
meal, food, eat, eating out, dine, dining
drinks, alcohol, beverages
late-night, late night, night
booking, book, reservation, reserve
abroad, overseas, outside the country, international
eu, european union, europe, european
length, long
elsewhere, somewhere, somewhere else, anywhere else
receipt, proof of purchase
`

// broaderTerms are the one-way entries: a word and the broader words, or
// the words of its usual context, a document may use for it. A question
// about a cat is answered by the pet policy, one about pets is not answered
// by a sentence about cats; a question about retention by a text about
// deleting.
var broaderTerms = map[string][]string{
	"cat":          {"pet"},
	"dog":          {"pet"},
	"father":       {"family member", "immediate family", "parent"},
	"mother":       {"family member", "immediate family", "parent"},
	"parent":       {"family member", "immediate family"},
	"spouse":       {"family member", "immediate family"},
	"husband":      {"spouse", "family member", "immediate family"},
	"wife":         {"spouse", "family member", "immediate family"},
	"sibling":      {"family member", "immediate family"},
	"brother":      {"sibling", "family member", "immediate family"},
	"sister":       {"sibling", "family member", "immediate family"},
	"son":          {"child", "family member"},
	"daughter":     {"child", "family member"},
	"kid":          {"child"},
	"baby":         {"child", "newborn"},
	"grandparent":  {"family member"},
	"dinner":       {"meal"},
	"lunch":        {"meal"},
	"breakfast":    {"meal"},
	"food":         {"per diem"},
	"server":       {"system", "infrastructure"},
	"gone":         {"deleted", "removed", "erased"},
	"compensation": {"credit", "refund"},
	"notebook":     {"device"},
	"laptop":       {"device"},
	"computer":     {"device"},
	"phone":        {"device"},
	"retention":    {"delete", "storage"},
	"security":     {"password", "access"},
	"supplier":     {"supply"},
	"onboarding":   {"orientation", "new hire", "first day"},
	"remote":       {"hybrid"},
	"sick":         {"medical leave"},
	"bug":          {"defect", "issue"},
	"boss":         {"manager"},
	"manager":      {"lead"},
	"policy":       {"guideline", "rule"},
	"benefit":      {"insurance"},
	"quit":         {"severance"},
	"refund":       {"return"},
	"expense":      {"reimbursement"},
	"holiday":      {"vacation"},
}

// maxPhraseWords is the longest phrase the thesaurus reads as one keyword.
const maxPhraseWords = 4

// synonyms maps a word's key (its lemma: see lemma), or the keys of a
// phrase's words joined by spaces, to the words and phrases that often
// stand for it in documents. phraseKeys holds the keys of the phrases, so
// that a question's "sign up" or "time off" is read as one keyword.
var synonyms, phraseKeys = buildThesaurus(synonymGroups, broaderTerms)

// phraseFirst holds the first word of every phrase key, so that looking
// for phrases costs nothing at the other words.
var phraseFirst = func() map[string]bool {
	m := make(map[string]bool)
	for k := range phraseKeys {
		first, _, _ := strings.Cut(k, " ")
		m[first] = true
	}
	return m
}()

// buildThesaurus reads the groups and the one-way entries into the
// synonym table and the set of phrase keys. A member is never its own
// synonym, and a synonym is listed once per key.
func buildThesaurus(groups string, broader map[string][]string) (map[string][]string, map[string]bool) {
	syn := make(map[string][]string)
	phrases := make(map[string]bool)
	seen := make(map[string]map[string]bool)
	add := func(from, to string) {
		k, tk := phraseKey(from), phraseKey(to)
		if k == "" || tk == "" || k == tk {
			return
		}
		if seen[k] == nil {
			seen[k] = make(map[string]bool)
		}
		if seen[k][tk] {
			return
		}
		seen[k][tk] = true
		syn[k] = append(syn[k], to)
		if strings.Contains(k, " ") {
			phrases[k] = true
		}
	}
	for _, line := range strings.Split(groups, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		var members []string
		for _, m := range strings.Split(line, ",") {
			if m = strings.TrimSpace(m); m != "" {
				members = append(members, m)
			}
		}
		for _, a := range members {
			for _, b := range members {
				add(a, b)
			}
		}
	}
	for from, tos := range broader {
		for _, to := range tos {
			add(from, to)
		}
	}
	return syn, phrases
}

// phraseKey is the key of a word or phrase in the synonym table: the
// stems of its words (irregular forms as their base: "paid back" is "pay
// back") joined by spaces. Phrases longer than maxPhraseWords get no key.
func phraseKey(s string) string {
	toks := words.Tokens(s)
	if len(toks) == 0 || len(toks) > maxPhraseWords {
		return ""
	}
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = lemma(t)
	}
	return strings.Join(stems, " ")
}

// lemma is the stem of a token's base form: "lost" is "los" like "lose",
// "paid" is "pay".
func lemma(t words.Token) string {
	if b, ok := irregularForms[t.Lower]; ok {
		return words.Stem(b)
	}
	return t.Stem
}
