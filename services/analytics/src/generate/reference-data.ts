/**
 * Shapes of the real Olist data the generator imitates: monthly order volume from
 * 2016-09 to 2018-10 (growth, the November 2017 Black Friday peak, the thin first and
 * last months), product categories with their English names and typical prices, and
 * where customers live.
 */

/** Orders per month in the published data set, by `YYYY-MM`; used as relative weights. */
export const MONTHLY_ORDER_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['2016-09', 4],
  ['2016-10', 324],
  ['2016-11', 0],
  ['2016-12', 1],
  ['2017-01', 800],
  ['2017-02', 1780],
  ['2017-03', 2682],
  ['2017-04', 2404],
  ['2017-05', 3700],
  ['2017-06', 3245],
  ['2017-07', 4026],
  ['2017-08', 4331],
  ['2017-09', 4285],
  ['2017-10', 4631],
  ['2017-11', 7544],
  ['2017-12', 5673],
  ['2018-01', 7269],
  ['2018-02', 6728],
  ['2018-03', 7211],
  ['2018-04', 6939],
  ['2018-05', 6873],
  ['2018-06', 6167],
  ['2018-07', 6292],
  ['2018-08', 6512],
  ['2018-09', 16],
  ['2018-10', 4],
];

export interface CategorySpec {
  /** Portuguese name, as in `olist_products_dataset.csv`. */
  name: string;
  /** English name; undefined: absent from the translation file, as in the real data. */
  english: string | undefined;
  /** Relative share of products. */
  weight: number;
  /** Median item price in BRL. */
  medianPrice: number;
}

export const CATEGORIES: readonly CategorySpec[] = [
  { name: 'cama_mesa_banho', english: 'bed_bath_table', weight: 110, medianPrice: 80 },
  { name: 'beleza_saude', english: 'health_beauty', weight: 95, medianPrice: 80 },
  { name: 'esporte_lazer', english: 'sports_leisure', weight: 85, medianPrice: 80 },
  { name: 'moveis_decoracao', english: 'furniture_decor', weight: 82, medianPrice: 70 },
  { name: 'informatica_acessorios', english: 'computers_accessories', weight: 77, medianPrice: 80 },
  { name: 'utilidades_domesticas', english: 'housewares', weight: 69, medianPrice: 60 },
  { name: 'relogios_presentes', english: 'watches_gifts', weight: 59, medianPrice: 170 },
  { name: 'telefonia', english: 'telephony', weight: 44, medianPrice: 35 },
  { name: 'ferramentas_jardim', english: 'garden_tools', weight: 43, medianPrice: 60 },
  { name: 'automotivo', english: 'auto', weight: 42, medianPrice: 90 },
  { name: 'brinquedos', english: 'toys', weight: 40, medianPrice: 80 },
  { name: 'cool_stuff', english: 'cool_stuff', weight: 37, medianPrice: 120 },
  { name: 'perfumaria', english: 'perfumery', weight: 34, medianPrice: 90 },
  { name: 'bebes', english: 'baby', weight: 30, medianPrice: 90 },
  { name: 'eletronicos', english: 'electronics', weight: 27, medianPrice: 40 },
  { name: 'papelaria', english: 'stationery', weight: 25, medianPrice: 60 },
  {
    name: 'fashion_bolsas_e_acessorios',
    english: 'fashion_bags_accessories',
    weight: 20,
    medianPrice: 45,
  },
  { name: 'pet_shop', english: 'pet_shop', weight: 19, medianPrice: 70 },
  { name: 'moveis_escritorio', english: 'office_furniture', weight: 16, medianPrice: 150 },
  { name: 'consoles_games', english: 'consoles_games', weight: 11, medianPrice: 70 },
  { name: 'malas_acessorios', english: 'luggage_accessories', weight: 10, medianPrice: 130 },
  {
    name: 'construcao_ferramentas_construcao',
    english: 'construction_tools_construction',
    weight: 8,
    medianPrice: 90,
  },
  { name: 'eletrodomesticos', english: 'home_appliances', weight: 7, medianPrice: 60 },
  { name: 'instrumentos_musicais', english: 'musical_instruments', weight: 6, medianPrice: 120 },
  { name: 'eletroportateis', english: 'small_appliances', weight: 6, medianPrice: 190 },
  { name: 'casa_construcao', english: 'home_construction', weight: 5, medianPrice: 80 },
  { name: 'livros_interesse_geral', english: 'books_general_interest', weight: 5, medianPrice: 50 },
  { name: 'alimentos', english: 'food', weight: 4, medianPrice: 40 },
  { name: 'moveis_sala', english: 'furniture_living_room', weight: 4, medianPrice: 110 },
  { name: 'climatizacao', english: 'air_conditioning', weight: 3, medianPrice: 120 },
  { name: 'seguros_e_servicos', english: 'security_and_services', weight: 0.1, medianPrice: 140 },
  // Present in the products file, missing from the translation file (as in the real data).
  { name: 'pc_gamer', english: undefined, weight: 0.3, medianPrice: 170 },
  {
    name: 'portateis_cozinha_e_preparadores_de_alimentos',
    english: undefined,
    weight: 0.4,
    medianPrice: 190,
  },
];

/** Share of products whose category is empty in the products file. */
export const MISSING_CATEGORY_SHARE = 0.0185;

export { ORDER_STATUSES } from '../olist-format.js';
export const ORDER_STATUS_WEIGHTS = [97.02, 1.11, 0.63, 0.61, 0.32, 0.3, 0.005, 0.002];

/** State → (share of customers, a few of its cities with a zip prefix). */
export const STATES: ReadonlyArray<
  readonly [string, number, ReadonlyArray<readonly [string, number]>]
> = [
  [
    'SP',
    42,
    [
      ['sao paulo', 1151],
      ['campinas', 13010],
      ['guarulhos', 7010],
      ['santo andre', 9010],
      ['osasco', 6010],
    ],
  ],
  [
    'RJ',
    13,
    [
      ['rio de janeiro', 20010],
      ['niteroi', 24010],
      ['nova iguacu', 26010],
    ],
  ],
  [
    'MG',
    12,
    [
      ['belo horizonte', 30110],
      ['juiz de fora', 36010],
      ['uberlandia', 38400],
    ],
  ],
  [
    'RS',
    5.5,
    [
      ['porto alegre', 90010],
      ['caxias do sul', 95010],
    ],
  ],
  [
    'PR',
    5,
    [
      ['curitiba', 80010],
      ['londrina', 86010],
    ],
  ],
  [
    'SC',
    3.7,
    [
      ['florianopolis', 88010],
      ['joinville', 89201],
    ],
  ],
  [
    'BA',
    3.4,
    [
      ['salvador', 40010],
      ['feira de santana', 44001],
    ],
  ],
  ['DF', 2.2, [['brasilia', 70040]]],
  [
    'ES',
    2,
    [
      ['vitoria', 29010],
      ['vila velha', 29100],
    ],
  ],
  ['GO', 2, [['goiania', 74003]]],
  ['PE', 1.7, [['recife', 50010]]],
  ['CE', 1.3, [['fortaleza', 60010]]],
  ['PA', 1, [['belem', 66010]]],
  ['MT', 0.9, [['cuiaba', 78005]]],
  ['MA', 0.75, [['sao luis', 65010]]],
  ['MS', 0.7, [['campo grande', 79002]]],
  ['PB', 0.5, [['joao pessoa', 58010]]],
  ['PI', 0.5, [['teresina', 64000]]],
  ['RN', 0.5, [['natal', 59010]]],
  ['AL', 0.4, [['maceio', 57010]]],
  ['SE', 0.35, [['aracaju', 49010]]],
  ['TO', 0.3, [['palmas', 77001]]],
  ['RO', 0.25, [['porto velho', 76801]]],
  ['AM', 0.15, [['manaus', 69005]]],
  ['AC', 0.08, [['rio branco', 69900]]],
  ['AP', 0.07, [['macapa', 68900]]],
  ['RR', 0.05, [['boa vista', 69300]]],
];
