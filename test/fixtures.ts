/** Structures that several test files post. */

/** Ethanol with 3D coordinates (heavy atoms only). */
export const ETHANOL_3D = `ethanol conformer
  hand-made 3D

  3  2  0  0  0  0  0  0  0  0999 V2000
   -0.8883    0.1670   -0.0273 C   0  0  0  0  0  0  0  0  0  0  0  0
    0.4658   -0.5116    0.0681 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.4311    0.3640   -0.4731 O   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
M  END
`;
