"""Write rust/metrics/testdata/porter_nltk.tsv: words and the stems NLTK's PorterStemmer gives.

rouge-score's ``use_stemmer=True`` runs ``nltk.stem.porter.PorterStemmer()`` (the default
``NLTK_EXTENSIONS`` mode) on every token longer than three characters. The Rust stemmer is
checked against this file by ``cargo test`` and the file itself against the installed NLTK by
``tests/test_metrics_rouge_n.py``. The words are built deterministically: English-like roots
with every suffix the algorithm knows, the irregular forms, runs of y, digits, and seeded random
strings over a vowel-heavy alphabet.

    python tools/gen_porter_vectors.py > rust/metrics/testdata/porter_nltk.tsv
"""

from __future__ import annotations

import random
import re
import sys

from nltk.stem.porter import PorterStemmer

ROOTS = re.findall(
    r"\S+",
    """
abandon abate abbrevi absorb accept access accommod account achiev acknowledg activ adapt adjust
admir adopt advis affect agre alloc allow alter analog analys announc appear appli appreci
approach argu arrang assess assign assist attach attend author avail balanc bear beauti begin
believ belong benefit bill bless bloom book bore bother bowdler brief bright build burn calcul
call calm care carri caus ceas certifi chang charg cheer choos civil claim classifi clean clear
climb close collect combin comfort command commun compar compet complet comput concern condit
conduct confer confirm conflat connect consid consist construct contain continu contribut
control convers convinc cook correct count cover creat critic cultur cure cut damag danc dark
deal debat decid decis declar decor defend defin deliv demand depend deriv describ design
destroy determin develop differ digit direct discov discuss distribut divid document domin
doubt drag draw dream dress drink drive drop dye earn eas econom edit educ effect elect
electr employ enabl encourag end energ engag enjoy ensur enter equip establish estim evalu
event examin exist expand expect experi explain explor express extend fail fall feed feel fill
filt final finish fit fix flow fly focus follow forget form formal found free fulfil function
gain gather gener generat giv govern grant grow guarante guid hand happen happi harm hate head
hear help hesit hide hire hold hop hope hurri identifi ignor illustr imagin improv includ
increas indic influenc inform insist instal intend interest introduc invent investig involv
join judg jump keep kill knock label lack land last laugh lead learn leav lend level lie lift
like limit link listen live load locat look lose love maintain manag mark marri match matter
mean measur meet mention mind miss mix motor move multipl nation need notic obtain occur offer
oper opin order organ own paint pass pay perform permit persuad pick place plan plant plaster
play pleas point polic possess practic prefer prepar present press prevent principl process
produc promis protect prove provid publish pull punish purchas push question rais reach read
real realiz receiv recogn recommend record reduc refer reflect refus regard relat relax releas
remain rememb remov repeat replac report repres requir resist resolv respond rest result
return reveal reviv ride ring rise risk roll rule run satisfi save say search secur seem sell
send sens sensit separ serv set settl shake shape share shift shine shoot shop show sign
signific simpl sing sit size sleep slip smile solv sort sound speak special spend spi spread
stand start state stay steal stick stop store strengthen stretch strike structur studi succeed
suffer suggest suit suppli support suppos surviv suspect switch take talk teach tell tend
test thank think threaten throw tie toler touch train transform translat travel treat tri
troubl trust turn understand unit urg use valu vari view visit vote wait walk want warn wash
watch wear weigh win wish wonder work worri write yield
""",
)

SUFFIXES = re.findall(
    r"\S+",
    """
s es ies sses ss ed ied eed ing ings y ly ily ally ally alli ation ational tional ations enci
ence anci ance izer ize ization izations abli able bli ble alli al entli ent eli e ousli ous
ator ators alism alisms iveness ive fulness ful ousness aliti iviti ive biliti bility fulli
fully logi logy logies icate ative alize iciti ical ness al ance ence er ers ic able ible ant
ement ment ments ent ion ions ou ism ate ates iti ous ive ize ized izing ll ller lled
at atting atted bl bling bled iz izzing fy fying fied ful fulness er est ier iest
""",
)

EXTRA = re.findall(
    r"\S+",
    """
sky skies dying lying tying news inning innings outing outings canning cannings howe proceed
exceed succeed dies died flies spied by spy enjoy happy toy syzygy yyyy yyyyy yyyyyy yyy ayy
ayyy yay yeye eye eyes feed agreed bled sing caresses ponies cats controll roll probate rate
cease revival allowance hopping tanning falling hissing fizzed failing filing
hopefulness goodness radically archaeology geology theology hopefully sensibility ieee
1990s 2000 abc123ing x86ing mp3s covid19 aaaa eeee iiii oooo uuuu bbbb zzzz
""",
)


def words() -> list[str]:
    seen: dict[str, None] = {}
    for w in EXTRA:
        seen[w] = None
    rng = random.Random(20240521)
    for root in ROOTS:
        seen[root] = None
        for suf in rng.sample(SUFFIXES, 12):
            seen[root + suf] = None
    alphabet = "aeiouyaeiouybcdfghlmnprstvwxzsly"
    for _ in range(2000):
        n = rng.randint(2, 14)
        seen["".join(rng.choice(alphabet) for _ in range(n))] = None
    for _ in range(500):
        root = rng.choice(ROOTS)
        seen[root + rng.choice(SUFFIXES) + rng.choice(SUFFIXES)] = None
    return list(seen)


def main() -> None:
    stemmer = PorterStemmer()
    out = sys.stdout
    out.write(
        "# word<TAB>nltk PorterStemmer().stem(word); generated by tools/gen_porter_vectors.py\n"
    )
    for w in words():
        out.write(f"{w}\t{stemmer.stem(w)}\n")


if __name__ == "__main__":
    main()
